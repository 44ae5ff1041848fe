/** The vox release. voxd and vox compare theirs to warn about a stale daemon. */
export const VERSION = '0.1.0';
