// npm test: the grammar against the fixtures, with the Go, JavaScript and
// Python grammars (from tm-grammars) that VS Code's built-in extensions
// provide for the embedded heredocs.
const { spawnSync } = require('child_process');
const path = require('path');

const grammars = path.join(__dirname, '..', 'node_modules', 'tm-grammars');
const args = [];
for (const g of ['go', 'javascript', 'python']) {
  args.push('-g', path.join(grammars, 'grammars', g + '.json'));
}
args.push(path.join(__dirname, 'fixtures', '*.fixture'));
const bin = path.join(__dirname, '..', 'node_modules', 'vscode-tmgrammar-test', 'dist', 'unit.js');
const r = spawnSync(process.execPath, [bin, ...args], { stdio: 'inherit', cwd: path.join(__dirname, '..') });
process.exit(r.status === null ? 1 : r.status);
