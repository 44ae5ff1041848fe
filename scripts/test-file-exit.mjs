// Loaded into every test file's process by scripts/test.mjs (--import). A file
// whose timed-out test left a handle open (a server, a child's pipe, a timer)
// would never exit, and the whole run would hang on it. Node's
// --test-force-exit ends such a file, but with --test-concurrency above 1 it
// exits before the parent has read the results the file wrote to its pipe, and
// those tests vanish from the run without a failure (nodejs/node#64833; seen
// here: 80 of 952 tests missing, exit 0). So instead: once every test of the
// file has ended, a file still running GRACE_MS later exits by itself, long
// after its results were read. The clock starts as the root's after() hooks
// begin (this one is registered first), so the file's own clean-up gets the
// same 30 s.
import { after } from 'node:test';

const GRACE_MS = 30_000;

// Only inside a test file's own process (node --test sets NODE_TEST_CONTEXT there), not in the runner.
if (process.env.NODE_TEST_CONTEXT) {
  after(() => {
    setTimeout(() => {
      process.stderr.write(
        `# ${process.argv[1] ?? 'a test file'} still running ${GRACE_MS} ms after its last test (a handle left open): ended\n`,
      );
      process.exit();
    }, GRACE_MS).unref();
  });
}
