/**
 * Counts the files on a path through the code by following calls, not imports
 * (docs/fulfilment.md, issue #36): from the entries, every call (and `new`, and every function
 * passed by name as an argument) is resolved by the TypeScript checker to its declaration; a
 * declaration of ours with a body is visited in turn. A file counts when one of its declarations
 * is reached (type-only declarations never count). Calls made by name at run time (Temporal
 * starting a workflow by its type, the plugin runtime loading a plugin) are not calls in the
 * source: the workflow is an entry of its own, and a plugin's own files are not counted.
 *
 *   node --import tsx scripts/trace-path.ts [root]            the two paths of docs/fulfilment.md
 *   node --import tsx scripts/trace-path.ts [root] --files    and their files
 *
 * An entry is `file` (all its code), `file#name` (a function or variable), or
 * `file#openapi:name` (the handler of the route `name` of a route file).
 */
import path from 'node:path';
import ts from 'typescript';

/**
 * Each path: its entries, and the cases it takes where the code switches on a kind (a `switch`
 * whose labels are strings follows only the clauses named here when it has one of them: the
 * relay performs the `start_fulfilment` row, the dispatch fulfils a purchase).
 */
const PATHS: Record<string, { entries: string[]; cases: string[] }> = {
  'QR payment callback → active service': {
    entries: ['api/routes/client/payment-notify.ts', 'domain/outbox/relay.ts', 'workflows/provisioning/workflow.ts#provisionServiceWorkflow'],
    cases: ['start_fulfilment', 'provisioning'],
  },
  'admin retry of a provisioning': {
    entries: ['api/routes/admin/provisioning.ts#openapi:retry', 'workflows/upstream/admin-decision.ts#adminDecisions'],
    cases: [],
  },
};

const root = path.resolve(process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : '.');
const listFiles = process.argv.includes('--files');
const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
if (!config) throw new Error('no tsconfig.json');
const program = ts.createProgram({ rootNames: config.fileNames.filter((f) => !f.includes('/test/')), options: config.options });
const checker = program.getTypeChecker();

const ours = (file: string) => file.startsWith(root + path.sep) && !file.includes(`${path.sep}node_modules${path.sep}`) && !file.endsWith('.d.ts');

function entryNodes(entry: string): ts.Node[] {
  const [file, name] = entry.split('#') as [string, string | undefined];
  const source = program.getSourceFile(path.join(root, file));
  if (!source) throw new Error(`no source file ${file}`);
  if (!name) return [source];
  const found: ts.Node[] = [];
  const route = name.startsWith('openapi:') ? name.slice('openapi:'.length) : null;
  const walk = (node: ts.Node) => {
    if (route && ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'openapi') {
      const [first, handler] = node.arguments;
      if (first && ts.isIdentifier(first) && first.text === route && handler) found.push(handler);
    }
    if (!route && (ts.isFunctionDeclaration(node) || ts.isVariableDeclaration(node)) && node.name && ts.isIdentifier(node.name) && node.name.text === name) found.push(node);
    ts.forEachChild(node, walk);
  };
  walk(source);
  if (found.length === 0) throw new Error(`no ${name} in ${file}`);
  return found;
}

function trace(entries: string[], cases: string[]): Set<string> {
  const files = new Set<string>();
  const seen = new Set<ts.Node>();
  const queue: ts.Node[] = [];
  const reach = (decl: ts.Declaration) => {
    const file = decl.getSourceFile().fileName;
    if (!ours(file) || seen.has(decl)) return;
    if (ts.isInterfaceDeclaration(decl) || ts.isTypeAliasDeclaration(decl) || ts.isPropertySignature(decl) || ts.isMethodSignature(decl)) return;
    seen.add(decl);
    files.add(path.relative(root, file));
    queue.push(decl);
  };
  const resolve = (expr: ts.Node) => {
    const at = ts.isPropertyAccessExpression(expr) ? expr.name : ts.isElementAccessExpression(expr) ? expr.argumentExpression : expr;
    let symbol = checker.getSymbolAtLocation(at);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    for (const decl of symbol?.declarations ?? []) {
      if (ts.isShorthandPropertyAssignment(decl)) {
        const value = checker.getShorthandAssignmentValueSymbol(decl);
        for (const d of value?.declarations ?? []) reach(d);
      } else reach(decl);
    }
  };
  for (const entry of entries) {
    for (const node of entryNodes(entry)) {
      files.add(path.relative(root, node.getSourceFile().fileName));
      queue.push(node);
    }
  }
  while (queue.length > 0) {
    const node = queue.pop() as ts.Node;
    // A declaration's code: a function's body, a variable's or property's initializer, a class's members.
    const code = ts.isVariableDeclaration(node) || ts.isPropertyAssignment(node) || ts.isPropertyDeclaration(node) ? node.initializer : node;
    if (!code) continue;
    const walk = (n: ts.Node) => {
      if (ts.isSwitchStatement(n)) {
        const labelled = n.caseBlock.clauses.filter((c): c is ts.CaseClause => ts.isCaseClause(c) && ts.isStringLiteral(c.expression));
        const taken = labelled.filter((c) => cases.includes((c.expression as ts.StringLiteral).text));
        if (taken.length > 0) {
          walk(n.expression);
          // The clauses taken, and those they fall through to.
          const all = n.caseBlock.clauses;
          for (const clause of taken) for (let i = all.indexOf(clause); i < all.length; i++) {
            const c = all[i] as ts.CaseOrDefaultClause;
            c.statements.forEach(walk);
            if (c.statements.length > 0) break;
          }
          return;
        }
      }
      if (ts.isCallExpression(n) || ts.isNewExpression(n) || ts.isTaggedTemplateExpression(n)) {
        resolve(ts.isTaggedTemplateExpression(n) ? n.tag : n.expression);
        for (const arg of (ts.isTaggedTemplateExpression(n) ? [] : n.arguments) ?? []) if (ts.isIdentifier(arg) || ts.isPropertyAccessExpression(arg)) resolve(arg);
      }
      ts.forEachChild(n, walk);
    };
    ts.forEachChild(code, walk);
  }
  return files;
}

for (const [name, { entries, cases }] of Object.entries(PATHS)) {
  const files = [...trace(entries, cases)].sort();
  const folders = new Set(files.map((f) => path.dirname(f)));
  const runtime = files.filter((f) => f.startsWith('plugins/runtime/')).length;
  const infra = files.filter((f) => f.startsWith('lib/') || f.startsWith('db/')).length;
  console.log(`${name}: ${files.length} files in ${folders.size} folders (plugin runtime ${runtime}; lib/ and db/ ${infra}; without those ${files.length - runtime - infra})`);
  if (listFiles) for (const f of files) console.log(`  ${f}`);
}
