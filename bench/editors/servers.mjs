// The servers the editor benchmarks start side by side (pallas-lsp and the
// peer, pyright-langserver, configured as VS Code would with the selected
// interpreter), and the CPU time a process has used.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function serverSpecs(root, python) {
  return [
    {
      name: 'pallas-lsp',
      command: process.env.PALLAS_LSP_BIN ?? join(root, 'build', 'server', 'pallas-lsp'),
      args: ['serve', '--stdio'],
      initializationOptions: { python, workspaceTrusted: true },
      configuration: (section) => (section === 'pallasLsp' || section === 'pallas-lsp' ? { python } : null),
    },
    {
      name: 'pyright',
      command: process.execPath,
      args: [join(root, 'node_modules', 'pyright', 'langserver.index.js'), '--stdio'],
      initializationOptions: {},
      // What VS Code answers for pyright's sections with the interpreter selected.
      configuration: (section) =>
        ({
          python: { pythonPath: python },
          'python.analysis': { diagnosticMode: 'openFilesOnly', typeCheckingMode: 'standard' },
          pyright: {},
        })[section] ?? null,
    },
  ];
}

// CPU time (user + system, ms) the process has used: steadier than wall
// time on a shared machine.
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, USER_HZ 100
  } catch {
    return NaN;
  }
}
