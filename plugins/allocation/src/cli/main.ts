#!/usr/bin/env node
import { runCli } from './run-cli';

// The package bin (bin/mqkit-allocation.js) and `npm run simulate` both land here.
process.exitCode = runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
