/** The shared-memory ring between the `audioio` sink and its worker, their messages, and how audio-io's errors are worded. */

/** Slots of the Int32 control array. */
export const CTL = {
  /** Samples written by the main thread, in all. */
  WRITTEN: 0,
  /** Samples copied to the device by the worker, in all. */
  READ: 1,
  /** ENDED | STOP. */
  FLAGS: 2,
  /** Device callbacks so far: a device that stops calling has gone away. */
  CALLBACKS: 3,
  ENDED: 1,
  STOP: 2,
  SLOTS: 4,
} as const;

export type AudioIoRequest =
  | {
      type: 'open';
      sampleRate: number;
      bufferMs: number;
      ctl: SharedArrayBuffer;
      data: SharedArrayBuffer;
      times: SharedArrayBuffer;
    }
  | { type: 'close' };

export type AudioIoReply =
  { type: 'opened' } | { type: 'failed'; message: string } | { type: 'closed'; message?: string };

/** An audio-io error in a line: a missing libasound.so.2 surfaces as a dlopen error naming the addon's absolute path; keep the cause. */
export function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const lib = /(lib[\w.-]+\.so[\d.]*): cannot open shared object file/.exec(message);
  if (lib) return `${lib[1]} is missing`;
  return message.split('\n')[0]!;
}
