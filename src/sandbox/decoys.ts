// Refused reads, seen. On Linux the sandbox hides a secret folder behind an empty one and says
// nothing when it is read. ralph puts a stand-in there instead: a folder of its own with one
// short file for each file of the real one ("hidden by ralph's sandbox"), never their contents.
// Each stand-in file's access time is set far back; reading it moves it forward (relatime), so
// after an iteration ralph knows which secret was tried, and sets the time back for the next.
import { existsSync, mkdirSync, readdirSync, realpathSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const TEXT = "This file is hidden by ralph's sandbox: the agent and verify commands cannot read secrets (docs/sandbox.md).\n";
/** How many entries of a hidden folder get a stand-in: a secret folder is small. */
const MAX_ENTRIES = 200;

export interface Decoy {
  /** Where the real one is (canonical: where the sandbox mounts). */
  real: string;
  /** The stand-in mounted there. */
  standIn: string;
  isDirectory: boolean;
}

export class Decoys {
  private readonly decoys: Decoy[] = [];
  /** Stand-in file → the real path it stands for. */
  private readonly watched = new Map<string, string>();

  constructor(hidden: readonly string[], folder: string) {
    mkdirSync(folder, { recursive: true });
    hidden.forEach((path, i) => {
      let real: string;
      let isDirectory: boolean;
      try {
        real = realpathSync(path);
        isDirectory = statSync(real).isDirectory();
      } catch {
        return; // not there: nothing to hide, nothing mounted
      }
      const standIn = join(folder, String(i));
      if (isDirectory) {
        mkdirSync(standIn);
        for (const entry of safeList(real).slice(0, MAX_ENTRIES)) {
          const at = join(standIn, entry.name);
          if (entry.isDirectory()) mkdirSync(at);
          else this.file(at, join(path, entry.name));
        }
      } else this.file(standIn, path);
      this.decoys.push({ real, standIn, isDirectory });
    });
  }

  list(): readonly Decoy[] {
    return this.decoys;
  }

  /** The stand-ins read since the last call, as the real paths they stand for. */
  takeReads(): string[] {
    const read: string[] = [];
    for (const [standIn, real] of this.watched) {
      try {
        if (statSync(standIn).atimeMs > 0) {
          read.push(real);
          resetAtime(standIn);
        }
      } catch {
        // removed from inside (the stand-in folder is writable, as the empty one would be)
      }
    }
    return read;
  }

  private file(at: string, real: string): void {
    writeFileSync(at, TEXT);
    resetAtime(at);
    this.watched.set(at, real);
  }
}

function resetAtime(path: string): void {
  if (existsSync(path)) utimesSync(path, 0, statSync(path).mtime);
}

function safeList(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * The library's bubblewrap command with each hidden path's empty folder (or /dev/null) replaced by
 * its stand-in. A path the library did not mount (absent, or spelled otherwise) is left as it is.
 */
export function withDecoys(wrapped: string, decoys: readonly Decoy[]): string {
  let out = wrapped;
  for (const d of decoys) {
    const target = quoteArg(d.real);
    const mount = d.isDirectory ? `--tmpfs ${target}` : `--ro-bind /dev/null ${target}`;
    out = out.split(` ${mount} `).join(` --bind ${quoteArg(d.standIn)} ${target} `);
  }
  return out;
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
