// Archives one export directory for download: archiveExport(name, dir) → the archive's path.
import { execSync } from 'node:child_process';

export function archiveExport(name, dir) {
  execSync(`tar czf exports/${name}.tgz ${dir}`);
  return `exports/${name}.tgz`;
}
