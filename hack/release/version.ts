// The project's one version (hack/release/versions.ts):
//   npx tsx hack/release/version.ts check [vX.Y.Z]   exits 1 naming each file that disagrees with package.json,
//                                                   or, with a tag, when the tag is not v<package.json version>
//   npx tsx hack/release/version.ts set X.Y.Z        writes X.Y.Z everywhere (package.json files, the lock, the chart)
import { fileURLToPath } from 'node:url';
import { findVersionDrift, readProjectVersion, setProjectVersion } from './versions.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const [command, argument] = process.argv.slice(2);

function fail(message: string): never {
  process.stderr.write(`version: ${message}\n`);
  process.exit(1);
}

if (command === 'check') {
  const problems = findVersionDrift(root);
  const version = readProjectVersion(root);
  if (argument !== undefined && argument !== `v${version}`) {
    problems.push(`tag ${argument}: expected v${version} (package.json version)`);
  }
  if (problems.length > 0) fail(`versions disagree:\n  ${problems.join('\n  ')}`);
  process.stdout.write(`${version}\n`);
} else if (command === 'set' && argument !== undefined) {
  setProjectVersion(root, argument);
  process.stdout.write(`${argument}\n`);
} else {
  fail('usage: version.ts check [vX.Y.Z] | set X.Y.Z');
}
