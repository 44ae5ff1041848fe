// A node:test reporter that writes only the failed tests, each with its place
// and the first lines of its error, for a summary a long log would bury:
// .ci/run prints it at the end of the run, where a CI page's tail shows it.
// scripts/test.mjs adds it when VOX_TEST_FAILURES names a file.
//
// A suite that failed only because a test in it did is left out: the test is
// the one to read. The whole text is bounded, so a run where everything
// fails still ends in a summary that fits a screen or two.

const MAX_ERROR_LINES = 24;
const MAX_TOTAL_LINES = 90;

export default async function* failures(source) {
  let lines = 0;
  let skipped = 0;
  // The names of the suites open in each file, by nesting: files run at once.
  const open = new Map();
  for await (const event of source) {
    if (event.type === 'test:start') {
      const path = open.get(event.data.file) ?? [];
      path[event.data.nesting] = event.data.name;
      path.length = event.data.nesting + 1;
      open.set(event.data.file, path);
      continue;
    }
    if (event.type !== 'test:fail') continue;
    const { data } = event;
    const error = data.details?.error;
    if (error?.failureType === 'subtestsFailed') continue;
    const names = [...(open.get(data.file) ?? []).slice(0, data.nesting), data.name].filter(Boolean);
    // No line: under tsx, node:test reports the line of the transformed file.
    const where = data.file ? relative(data.file) : '(no file)';
    const text = [
      `✖ ${where}: ${names.join(' › ')} (${Math.round(data.details?.duration_ms ?? 0)} ms)`,
      ...describe(error).map((l) => `    ${l}`),
    ];
    if (lines + text.length > MAX_TOTAL_LINES) {
      skipped++;
      continue;
    }
    lines += text.length;
    yield `${text.join('\n')}\n`;
  }
  if (skipped) yield `… and ${skipped} more failed test(s): see the full log\n`;
}

function describe(error) {
  if (!error) return ['(no error given)'];
  const cause = error.code === 'ERR_TEST_FAILURE' && error.cause ? error.cause : error;
  const text = cause instanceof Error ? (cause.stack ?? `${cause.name}: ${cause.message}`) : String(cause);
  const all = text.split('\n').filter((l) => !/^\s+at (?:.*\(node:|node:|async Promise\.)/.test(l));
  return all.length > MAX_ERROR_LINES
    ? [...all.slice(0, MAX_ERROR_LINES), `… ${all.length - MAX_ERROR_LINES} more line(s)`]
    : all;
}

function relative(file) {
  const cwd = `${process.cwd()}/`;
  const plain = file.startsWith('file://') ? decodeURIComponent(new URL(file).pathname) : file;
  return plain.startsWith(cwd) ? plain.slice(cwd.length) : plain;
}
