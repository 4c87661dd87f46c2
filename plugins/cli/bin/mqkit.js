#!/usr/bin/env node
'use strict';
// Committed shim for the package bin: the CLI itself is compiled to dist/ by `npm run build`.
require('../dist/main.js');
