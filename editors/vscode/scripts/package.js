// Packages the extension into a .vsix with @vscode/vsce, offline: everything it needs comes from
// node_modules (`npm ci` fills it from the npm registry). Writes stalwart-<version>.vsix here, or
// the path given.
//
//   npm ci && npm run package            # or: node scripts/package.js out/stalwart.vsix
'use strict';

const path = require('path');
const { createVSIX } = require('@vscode/vsce');

const root = path.join(__dirname, '..');
const { version } = require(path.join(root, 'package.json'));
const out = path.resolve(process.argv[2] || path.join(root, `stalwart-${version}.vsix`));

createVSIX({
  cwd: root,
  packagePath: out,
  dependencies: true,
  skipLicense: true,
  allowMissingRepository: true,
})
  .then(() => console.log(`wrote ${out}`))
  .catch((e) => {
    console.error(`error: ${e.message || e}`);
    process.exit(1);
  });
