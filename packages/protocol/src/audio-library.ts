/**
 * The audio library voxd's default output (audio-io) needs on Linux, and how
 * to install it: one text for voxd's fix (what `vox say` and the MCP tools
 * print) and `vox doctor`'s, so the two name the same packages.
 */
export const AUDIO_LIBRARY_FIX =
  'install the ALSA library: "apt-get install libasound2" (the package is libasound2t64 on Debian 13 and Ubuntu 24.04; "dnf install alsa-lib" on Fedora)';
