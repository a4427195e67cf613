#!/usr/bin/env node
// Encodes and decodes strings with a reference implementation of tokenizer.json, what tests/test_tokenizerjson
// compares ours against: the npm package @huggingface/tokenizers (JavaScript), or with --official the npm
// package tokenizers, Hugging Face's own Rust library for node.
//
//   node tests/reference/hf_tokenize.mjs MODEL_DIR STRINGS.json [--official] [NODE_MODULES]
//
// MODEL_DIR holds tokenizer.json (and tokenizer_config.json, when there is one). STRINGS.json is a JSON array of
// strings. Prints {"ids": [[…], …], "decoded": […], "halves": […], "withSpecials": [[…], …]}: each string's ids
// without the special tokens the post-processor adds, those ids decoded with the special tokens skipped, the
// first half of them decoded (a cut may fall inside a character or a word), and the ids with the special
// tokens added (--official only). NODE_MODULES defaults to the
// folder scripts/setup-deps.sh installs them into (.deps/npm/node_modules).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const official = args.includes('--official');
const rest = args.filter((a) => a !== '--official');
if (rest.length < 2) {
  process.stderr.write('usage: hf_tokenize.mjs MODEL_DIR STRINGS.json [--official] [NODE_MODULES]\n');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const modules = rest[2] || path.join(here, '..', '..', '.deps', 'npm', 'node_modules');
const [dir, stringsFile] = rest;
const strings = JSON.parse(fs.readFileSync(stringsFile, 'utf-8'));
if (!Array.isArray(strings) || strings.some((s) => typeof s !== 'string')) {
  process.stderr.write(stringsFile + ': expected a JSON array of strings\n');
  process.exit(1);
}

let ids, decoded, halves = [], withSpecials = [];
if (official) {
  const { Tokenizer } = createRequire(path.join(modules, 'x.js'))('tokenizers');
  const tokenizer = Tokenizer.fromFile(path.join(dir, 'tokenizer.json'));
  ids = [];
  decoded = [];
  for (const s of strings) {
    const e = await tokenizer.encode(s, null, { addSpecialTokens: false });
    ids.push(Array.from(e.getIds()));
    decoded.push(await tokenizer.decode(ids[ids.length - 1], true));
    const half = ids[ids.length - 1].slice(0, Math.floor(ids[ids.length - 1].length / 2));
    halves.push(await tokenizer.decode(half, true));
    withSpecials.push(Array.from((await tokenizer.encode(s, null, { addSpecialTokens: true })).getIds()));
  }
} else {
  const packageDir = path.join(modules, '@huggingface', 'tokenizers');
  const entry = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf-8'));
  const { Tokenizer } = await import(pathToFileURL(path.join(packageDir, entry.module || entry.main)).href);
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf-8'));
  const configPath = path.join(dir, 'tokenizer_config.json');
  const config = fs.existsSync(configPath) ? JSON.parse(fs.readFileSync(configPath, 'utf-8')) : {};
  const tokenizer = new Tokenizer(json, config);
  ids = strings.map((s) => Array.from(tokenizer.encode(s, { add_special_tokens: false }).ids));
  decoded = ids.map((i) => i.length === 0 ? '' :
    tokenizer.decode(i, { skip_special_tokens: true, clean_up_tokenization_spaces: false }));
}
process.stdout.write(JSON.stringify({ ids, decoded, halves, withSpecials }) + '\n');
