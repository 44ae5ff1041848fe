/** The errors of `vox voices install` (catalogue codes, errors.ts), and the small helpers their messages share. */
import { ClientError, type ClientErrorCode } from '../errors.js';

export class ModelError extends ClientError {
  constructor(code: ClientErrorCode, message: string) {
    super(code, message);
    this.name = 'ModelError';
  }
}

export interface Progress {
  /** Bytes of the archive on disk so far, and the whole size when the server said it. */
  (done: number, total: number | undefined): void;
}

export const MB = 1024 * 1024;
export const mb = (n: number) => `${(n / MB).toFixed(1)} MB`;

/** A full disk (ENOSPC, EDQUOT, or EFBIG from a file-size limit) as VOX_ERR_CLIENT_DISK_FULL; undefined for any other error. */
export function diskError(err: unknown, what: string): ModelError | undefined {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EFBIG' || code === 'EDQUOT') {
    return new ModelError(
      'VOX_ERR_CLIENT_DISK_FULL',
      `no room to write ${what} (${code === 'EFBIG' ? 'file size limit reached' : 'disk full'}); free some space under VOX_HOME/models and run the same command again`,
    );
  }
  return undefined;
}
