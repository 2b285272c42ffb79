// The TextMate grammars tokenized with vscode-textmate and vscode-oniguruma (the libraries VS Code
// itself uses), on the sample files, against snapshots: each line, then each token with its
// columns and scopes. `UPDATE_SNAPSHOTS=1 node test/grammar.test.js` writes the snapshots anew
// (review the diff like code).
'use strict';

const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const root = path.join(__dirname, '..');
const grammars = {
  'source.colang': 'syntaxes/colang.tmLanguage.json',
  'source.colang2': 'syntaxes/colang2.tmLanguage.json',
  'source.stalwart-rules': 'syntaxes/rules.tmLanguage.json',
};
// Sample → the grammar that reads it.
const samples = {
  'shop.co': 'source.colang',
  'main.v2.co': 'source.colang2',
  'shop.rules.csv': 'source.stalwart-rules',
};

async function registry() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  return new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope) => {
      const file = grammars[scope];
      if (!file) {
        return null;
      }
      const full = path.join(root, file);
      return vsctm.parseRawGrammar(fs.readFileSync(full, 'utf8'), full);
    },
  });
}

function tokenize(grammar, text) {
  const out = [];
  let state = vsctm.INITIAL;
  for (const line of text.split('\n')) {
    const result = grammar.tokenizeLine(line, state);
    out.push(`> ${line}`);
    for (const t of result.tokens) {
      const piece = line.slice(t.startIndex, t.endIndex);
      if (piece.trim() === '') {
        continue;
      }
      out.push(`  ${t.startIndex}-${t.endIndex} ${JSON.stringify(piece)} ${t.scopes.join(' ')}`);
    }
    state = result.ruleStack;
  }
  return `${out.join('\n')}\n`;
}

async function main() {
  const reg = await registry();
  const update = process.env.UPDATE_SNAPSHOTS === '1';
  let failed = 0;
  for (const [sample, scope] of Object.entries(samples)) {
    const grammar = await reg.loadGrammar(scope);
    if (!grammar) {
      throw new Error(`no grammar ${scope}`);
    }
    const text = fs.readFileSync(path.join(__dirname, 'samples', sample), 'utf8');
    const got = tokenize(grammar, text);
    const snap = path.join(__dirname, 'snapshots', `${sample}.tokens`);
    if (update) {
      fs.writeFileSync(snap, got);
      console.log(`wrote ${path.relative(root, snap)}`);
      continue;
    }
    const want = fs.existsSync(snap) ? fs.readFileSync(snap, 'utf8') : null;
    if (got !== want) {
      failed += 1;
      console.log(`${sample}: tokens differ from ${path.relative(root, snap)}`);
      const g = got.split('\n');
      const w = (want || '').split('\n');
      for (let i = 0; i < Math.max(g.length, w.length); i++) {
        if (g[i] !== w[i]) {
          console.log(`  line ${i + 1}:\n    got  ${g[i]}\n    want ${w[i]}`);
          break;
        }
      }
    } else {
      console.log(`${sample}: ok`);
    }
  }
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
