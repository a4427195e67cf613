#!/usr/bin/env node
// Encodes strings with the npm package gpt-3-encoder, the reference tests/test_gpt2tokenizer compares our
// byte-level BPE against.
//
//   node tests/reference/gpt2_encode.js STRINGS.json [PACKAGE_DIR]
//
// STRINGS.json is a JSON array of strings; prints a JSON array with each string's ids. PACKAGE_DIR defaults
// to the copy scripts/setup-deps.sh installs in .deps/npm.
'use strict';

const fs = require('fs');
const path = require('path');

if (process.argv.length < 3) {
  process.stderr.write('usage: gpt2_encode.js STRINGS.json [PACKAGE_DIR]\n');
  process.exit(2);
}
const packageDir = process.argv[3] ||
  path.join(__dirname, '..', '..', '.deps', 'npm', 'node_modules', 'gpt-3-encoder');
const { encode } = require(path.resolve(packageDir));

const strings = JSON.parse(fs.readFileSync(process.argv[2], 'utf-8'));
if (!Array.isArray(strings) || strings.some((s) => typeof s !== 'string')) {
  process.stderr.write(process.argv[2] + ': expected a JSON array of strings\n');
  process.exit(1);
}
process.stdout.write(JSON.stringify(strings.map((s) => encode(s))) + '\n');
