// The editor scenario from node, on vscode-languageserver-protocol (the protocol library the
// VS Code client is built on): open a broken .co and agent.yaml, read the diagnostics, fix the file
// with an edit, read the cleared set, ask for definitions across files, hover on a scenario's
// decision. Prints what it saw as
// JSON (tests/lsp/run compares it with tests/lsp/expected.json, as it does Neovim's).
//
//   node test/lsp-scenario.js STALWART_BIN WORKSPACE
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const rpc = require('vscode-languageserver-protocol/node');

const TIMEOUT_MS = 60000;
const [bin, workspace] = process.argv.slice(2);
const uri = (name) => pathToFileURL(path.join(workspace, name)).href;
const nameOf = (u) => decodeURIComponent(u).split('/').pop();
const compactRange = (r) => [r.start.line, r.start.character, r.end.line, r.end.character];

function fail(why) {
  process.stderr.write(`node scenario: ${why}\n`);
  process.exit(1);
}

async function main() {
  const child = spawn(bin, ['lsp'], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.on('error', (e) => fail(`cannot start ${bin}: ${e.message}`));
  const connection = rpc.createProtocolConnection(
    new rpc.StreamMessageReader(child.stdout),
    new rpc.StreamMessageWriter(child.stdin),
  );
  const latest = new Map();
  const waiters = [];
  connection.onNotification(rpc.PublishDiagnosticsNotification.type, (p) => {
    latest.set(nameOf(p.uri), p.diagnostics);
    for (const w of waiters.splice(0)) {
      w();
    }
  });
  connection.onRequest('client/registerCapability', () => null);
  connection.listen();
  const until = (what, accept) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), TIMEOUT_MS);
      const check = () => {
        if (accept()) {
          clearTimeout(timer);
          resolve();
        } else {
          waiters.push(check);
        }
      };
      check();
    });

  await connection.sendRequest(rpc.InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToFileURL(workspace).href,
    capabilities: {},
  });
  await connection.sendNotification(rpc.InitializedNotification.type, {});
  for (const [name, languageId] of [['agent.yaml', 'yaml'], ['policy.co', 'colang']]) {
    await connection.sendNotification(rpc.DidOpenTextDocumentNotification.type, {
      textDocument: {
        uri: uri(name),
        languageId,
        version: 1,
        text: fs.readFileSync(path.join(workspace, name), 'utf8'),
      },
    });
  }
  const compact = (list) => (list || []).map((d) => ({ code: d.code, range: compactRange(d.range) }));
  const transcript = {};
  await until('diagnostics of policy.co', () => (latest.get('policy.co') || []).length > 0);
  transcript.opened = {
    'policy.co': compact(latest.get('policy.co')),
    'agent.yaml': compact(latest.get('agent.yaml')),
  };
  // `execute refund_crd` → `execute refund_card`: one incremental change.
  await connection.sendNotification(rpc.DidChangeTextDocumentNotification.type, {
    textDocument: { uri: uri('policy.co'), version: 2 },
    contentChanges: [
      { range: { start: { line: 7, character: 12 }, end: { line: 7, character: 22 } }, text: 'refund_card' },
    ],
  });
  await until('the cleared set of policy.co', () => latest.get('policy.co').length === 0);
  transcript.fixed = { 'policy.co': compact(latest.get('policy.co')) };
  const definition = async (name, line, character) => {
    const found = await connection.sendRequest(rpc.DefinitionRequest.type, {
      textDocument: { uri: uri(name) },
      position: { line, character },
    });
    return (found || []).map((l) => ({ file: nameOf(l.uri), range: compactRange(l.range) }));
  };
  transcript.definitions = {
    'agent.yaml:4:26': await definition('agent.yaml', 4, 26),
    'policy.co:7:15': await definition('policy.co', 7, 15),
    'policy.co:5:8': await definition('policy.co', 5, 8),
  };
  // A scenario file: a hover on its `decision:` says what the check answers (the rulebook's
  // buffer as fixed above) and where it was decided; go to definition goes there.
  const scenario = 'refunds.scenario.yaml';
  await connection.sendNotification(rpc.DidOpenTextDocumentNotification.type, {
    textDocument: {
      uri: uri(scenario),
      languageId: 'yaml',
      version: 1,
      text: fs.readFileSync(path.join(workspace, scenario), 'utf8'),
    },
  });
  const hover = await connection.sendRequest(rpc.HoverRequest.type, {
    textDocument: { uri: uri(scenario) },
    position: { line: 9, character: 8 },
  });
  transcript.scenario = {
    hover: hover ? hover.contents.value.split('\n\n').slice(0, 3) : [],
    definition: await definition(scenario, 9, 8),
  };
  await connection.sendRequest(rpc.ShutdownRequest.type);
  await connection.sendNotification(rpc.ExitNotification.type);
  const code = await new Promise((resolve) => child.on('exit', resolve));
  if (code !== 0) {
    fail(`the server exited with ${code}`);
  }
  process.stdout.write(`${JSON.stringify(transcript)}\n`);
  connection.dispose();
}

main().catch((e) => fail(e.stack || String(e)));
