// The Stalwart extension: starts `stalwart lsp` (the `stalwart.path` setting) for rulebooks and
// agent descriptions, shows what the server is doing in a status item, and gives Colang 2.x files
// their own grammar. Every language feature comes from the server.
'use strict';

const vscode = require('vscode');
const { LanguageClient, State } = require('vscode-languageclient/node');

let client;
let status;

/** Whether a `.co` file is Colang 2.x, as the compiler decides when no config says: a top-level
 *  `flow` or `import`, and no `define`. */
function looksLikeColang2(text) {
  return /^(flow|import)\s/m.test(text) && !/^define\s/m.test(text);
}

function detectDialect(document) {
  if (document.languageId === 'colang' && looksLikeColang2(document.getText())) {
    vscode.languages.setTextDocumentLanguage(document, 'colang2');
  }
}

function startClient(context) {
  const command = vscode.workspace.getConfiguration('stalwart').get('path') || 'stalwart';
  const serverOptions = { command, args: ['lsp'] };
  const clientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'colang' },
      { scheme: 'file', language: 'colang2' },
      { scheme: 'file', language: 'stalwart-rules' },
      { scheme: 'file', pattern: '**/*.csv' },
      { scheme: 'file', pattern: '**/*.{yaml,yml,json,py}' },
    ],
    synchronize: {
      fileEvents: vscode.workspace.createFileSystemWatcher('**/*.{co,csv,yaml,yml,json,py}'),
    },
  };
  client = new LanguageClient('stalwart', 'Stalwart', serverOptions, clientOptions);
  client.onDidChangeState((e) => {
    if (e.newState === State.Running) {
      setStatus('ready');
    } else if (e.newState === State.Stopped) {
      setStatus('stopped', true);
    }
  });
  client.start().then(
    () => client.onNotification('stalwart/status', (p) => setStatus(p.message)),
    (err) => setStatus(`cannot start \`${command} lsp\`: ${err.message || err}`, true),
  );
  context.subscriptions.push(client);
}

function setStatus(message, warning) {
  status.text = `${warning ? '$(warning)' : '$(shield)'} Stalwart: ${message}`;
  status.tooltip = 'The Stalwart language server';
  status.show();
}

function activate(context) {
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  status.command = 'stalwart.restart';
  context.subscriptions.push(status);
  setStatus('starting');
  vscode.workspace.textDocuments.forEach(detectDialect);
  context.subscriptions.push(vscode.workspace.onDidOpenTextDocument(detectDialect));
  context.subscriptions.push(
    vscode.commands.registerCommand('stalwart.restart', async () => {
      if (client) {
        await client.stop();
      }
      setStatus('starting');
      startClient(context);
    }),
  );
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('stalwart.path')) {
        vscode.commands.executeCommand('stalwart.restart');
      }
    }),
  );
  startClient(context);
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate, looksLikeColang2 };
