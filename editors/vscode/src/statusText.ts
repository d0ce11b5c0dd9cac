// Text for the status bar from what the server reports. No VS Code import, so
// the tests load it in plain node.
import type { StatusParams } from './protocol';

/** The JAX part of the status: "JAX 0.10.2" when runs use the JAX the
 *  analysis reads; both apart when they do not ("analysis JAX 0.10.2 ·
 *  runs: no JAX"): a python3 without JAX showed "JAX 0.10.2" while every
 *  run failed. Undefined when the server said nothing of JAX. */
export function describeJax(status: StatusParams): string | undefined {
  const analysed = status.analysis?.jaxVersion ?? status.jaxVersion ?? undefined;
  const runs = status.runs;
  let runsText: string | undefined;
  switch (runs?.state) {
    case 'ready':
      runsText = runs.jaxVersion && runs.jaxVersion !== analysed ? `runs JAX ${runs.jaxVersion}` : undefined;
      break;
    case 'no-jax':
      runsText = 'runs: no JAX';
      break;
    case 'template':
      runsText = `runs via ${runs.via ?? 'template'}`;
      break;
    case 'refused':
      runsText = 'runs off';
      break;
  }
  if (!analysed) {
    return runsText;
  }
  return runsText ? `analysis JAX ${analysed} · ${runsText}` : `JAX ${analysed}`;
}

export function describeGpu(status: StatusParams): string | undefined {
  if (status.gpu) {
    return status.gpu;
  }
  if (!status.gpus) {
    return undefined;
  }
  if (status.gpus.length === 0) {
    return 'no GPU';
  }
  const first = status.gpus[0];
  const cc = Array.isArray(first.computeCapability)
    ? first.computeCapability.join('.')
    : first.computeCapability ?? undefined;
  const name = `${first.name ?? 'GPU'}${cc ? ` (sm ${cc})` : ''}`;
  return status.gpus.length > 1 ? `${name} +${status.gpus.length - 1}` : name;
}

/** Pulls "JAX <version>" and the first GPU line out of doctor's free text. */
export function parseDoctorText(text: string): StatusParams {
  const out: StatusParams = {};
  const jax = /\bjax\b[^\n0-9]*?(\d+\.\d+\.\d+[\w.+-]*)/i.exec(text);
  if (jax) {
    out.jaxVersion = jax[1];
  }
  if (/no (cuda )?(gpu|driver|device)/i.test(text)) {
    out.gpu = 'no GPU';
  } else {
    const gpu = /^\s*(?:gpu\s*\d*|device\s*\d+)\s*[:=]\s*(.+)$/im.exec(text);
    if (gpu) {
      out.gpu = gpu[1].trim();
    }
  }
  return out;
}
