// The watchdog: a detached process that stops the children the service started once the service is gone, however it
// went (kill -9 included): its stdin is a pipe from the service, which the kernel closes when the service dies.
// Lines on stdin: `watch <pid> <signal>` (stop the process with that signal, then its whole group with SIGKILL) and
// `unwatch <pid>`. Run with plain node (no TypeScript): it must start fast and depend on nothing.
import { readFileSync } from 'node:fs';

const killAfterMs = Number(process.argv[2] ?? 5_000);
const watched = new Map();

/** The process's start time (/proc/<pid>/stat field 22): a pid reused by another process does not match it. */
function startTime(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

const ours = (pid, started) => started === null || startTime(pid) === started;

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function send(pid, signal) {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already.
  }
}

async function stopWatched() {
  const targets = [...watched].filter(([pid, { started }]) => alive(pid) && ours(pid, started));
  for (const [pid, { signal }] of targets) send(pid, signal);
  const deadline = Date.now() + killAfterMs;
  while (Date.now() < deadline && targets.some(([pid]) => alive(pid)))
    await new Promise((done) => setTimeout(done, 100));
  // The group too: children of the child (PostgreSQL's backends) must not outlive it either.
  for (const [pid] of targets) send(-pid, 'SIGKILL');
  process.exit(0);
}

let buffered = '';
process.stdin.on('data', (chunk) => {
  buffered += chunk.toString();
  const lines = buffered.split('\n');
  buffered = lines.pop() ?? '';
  for (const line of lines) {
    const [command, pidText, signal] = line.trim().split(' ');
    const pid = Number(pidText);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    if (command === 'watch') watched.set(pid, { signal: signal || 'SIGTERM', started: startTime(pid) });
    else if (command === 'unwatch') watched.delete(pid);
  }
});
process.stdin.on('close', () => void stopWatched());
// Its own process group already keeps a Ctrl-C away; a hang-up of the terminal must not end it either.
for (const signal of ['SIGINT', 'SIGHUP']) process.on(signal, () => undefined);
