/** The findings as `summarize` and `record` print them: most severe first, with evidence, advice and link. */
import type { Finding } from '../format/trace';

const MAX_EVIDENCE_SHOWN = 10;

export function formatFindings(findings: readonly Finding[]): string[] {
  const out = [findings.length ? `findings (${findings.length}):` : 'findings: none'];
  for (const f of findings) {
    out.push(`  [${f.severity}] ${f.title}`, `      ${f.detail}`, `      advice: ${f.advice}`);
    if (f.evidence.length) {
      const total = f.evidenceCount ?? f.evidence.length;
      const more = total > MAX_EVIDENCE_SHOWN ? ` … (${total})` : '';
      out.push(`      evidence: seq ${f.evidence.slice(0, MAX_EVIDENCE_SHOWN).join(', ')}${more}`);
    }
    if (f.link) out.push(`      see ${f.link}`);
  }
  return out;
}
