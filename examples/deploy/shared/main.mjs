// Entry of the bundler recipes: runs the agent once and prints the outcome as one JSON line.
import { runAgent } from './agent.mjs';

console.log(JSON.stringify(await runAgent()));
