// Runs first in each npm script that runs a TypeScript file with `node`: an older Node than the
// project's fails on the first `.ts` with ERR_UNKNOWN_FILE_EXTENSION, which never names the cause.
// Plain CommonJS in a file of its own, so that any Node runs it. npm skips pre- and post-scripts
// when scripts are ignored, the very case this is for, so each script line calls it itself.
'use strict';

const { engines } = require('../package.json');

/** Why a Node of `version` at `execPath` cannot run the project's scripts; else undefined. */
function nodeVersionProblem(version, execPath) {
  const required = Number(/^>=(\d+)$/.exec(engines.node)[1]);
  if (Number(version.split('.')[0]) >= required) return undefined;
  return (
    `This project needs Node ${required} or newer, but ${execPath} is Node ${version}. The "node" ` +
    `devDependency installs Node ${required} with an install script, which has not run ` +
    '(npm ci --ignore-scripts, or ignore-scripts=true in an npmrc, skips it): run ' +
    '`npm rebuild node --ignore-scripts=false`, or `npm ci` with scripts, and try again.'
  );
}

module.exports = { nodeVersionProblem };

if (require.main === module) {
  const problem = nodeVersionProblem(process.versions.node, process.execPath);
  if (problem !== undefined) {
    console.error(problem);
    process.exitCode = 1;
  }
}
