// The flowctl extension: starts `flowctl lsp` for flow, block and test
// files (docs/editors.md).
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function makeClient() {
  const cfg = vscode.workspace.getConfiguration('flowctl');
  const serverOptions = { command: cfg.get('path') || 'flowctl', args: ['lsp'] };
  const clientOptions = {
    documentSelector: [{ scheme: 'file', language: 'flowctl' }],
    initializationOptions: { registries: cfg.get('registries') || [] },
    synchronize: {
      // Files changed outside the editor (a checkout, a new block file)
      // are checked again.
      fileEvents: vscode.workspace.createFileSystemWatcher('**/*.{flow,block,test}.hcl'),
    },
  };
  return new LanguageClient('flowctl', 'flowctl', serverOptions, clientOptions);
}

async function activate(context) {
  client = makeClient();
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('flowctl.path') || e.affectsConfiguration('flowctl.registries')) {
        await client.stop();
        client = makeClient();
        await client.start();
      }
    }),
    vscode.commands.registerCommand('flowctl.restart', async () => {
      await client.stop();
      client = makeClient();
      await client.start();
    }),
  );
  await client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
