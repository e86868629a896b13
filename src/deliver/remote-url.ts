// Which repository a git remote names: host, owner and name from its URL, in the forms git
// accepts (https://host/owner/name.git, git@host:owner/name.git, ssh://git@host[:port]/owner/name).
// A local path or a file:// URL names no forge's repository.

export interface RemoteRepo {
  host: string;
  owner: string;
  name: string;
}

const SCP_LIKE = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/;

function split(host: string, path: string): RemoteRepo | null {
  const parts = path.replace(/^\/+/, '').replace(/\/+$/, '').replace(/\.git$/, '').split('/');
  // GitHub paths are exactly owner/name; deeper paths (GitLab subgroups) keep the last part as the name.
  if (parts.length < 2 || parts.some((p) => p === '' || p === '.' || p === '..')) return null;
  const name = parts.pop()!;
  return { host: host.toLowerCase(), owner: parts.join('/'), name };
}

export function parseRemoteUrl(url: string): RemoteRepo | null {
  const text = url.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let u: URL;
    try {
      u = new URL(text);
    } catch {
      return null;
    }
    if (!['https:', 'http:', 'ssh:', 'git:', 'git+ssh:', 'ssh+git:'].includes(u.protocol)) return null;
    return split(u.hostname, decodeURIComponent(u.pathname));
  }
  const scp = SCP_LIKE.exec(text);
  // `C:\repo` and `./x:y` are paths, not hosts.
  if (scp && !/^[a-z]$/i.test(scp[1]!) && !text.startsWith('.') && !text.startsWith('/')) return split(scp[1]!, scp[2]!);
  return null;
}
