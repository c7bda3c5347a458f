import type { ProposalRow } from '../db/types.ts'

// Pure counting rules (DAO DAO threshold-quorum) so routes, the sweep and reads agree.

export type QuorumRule = { kind: 'count', count: number } | { kind: 'share', basisPoints: number }

/** `3` (votes) or `40%` / `33.33%` (of the electorate, up to two decimals). */
export const QUORUM_RULE_PATTERN =
  '^([1-9][0-9]{0,3}|(100(\\.00?)?|[1-9][0-9]?(\\.[0-9]{1,2})?|0\\.([1-9][0-9]?|0[1-9]))%)$'

export function parseQuorumRule (rule: string): QuorumRule {
  const match = /^([0-9]+)(?:\.([0-9]{1,2}))?%$/.exec(rule)
  if (match === null) return { kind: 'count', count: Number(rule) }
  const basisPoints = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'))
  return { kind: 'share', basisPoints }
}

/** A share is rounded up, in integers so decimal rounding cannot move it. */
export function resolveQuorum (rule: QuorumRule, size: number): number {
  if (rule.kind === 'count') return rule.count
  return Math.max(1, Math.ceil((rule.basisPoints * size) / 10_000))
}

export type Counted = Pick<ProposalRow, 'yes' | 'no' | 'abstain' | 'quorum' | 'threshold' | 'electorate_size'>

/** Abstentions count towards the quorum but not the yes/(yes+no) threshold. */
export function passes (p: Omit<Counted, 'electorate_size'>): boolean {
  const decisive = p.yes + p.no
  return p.yes + p.no + p.abstain >= p.quorum && decisive > 0 && p.yes / decisive >= p.threshold
}

export const remainingOf = (p: Counted) => Math.max(0, p.electorate_size - (p.yes + p.no + p.abstain))

/** The outcome once no remaining voter could change it, else undefined. */
export function decided (p: Counted): 'passed' | 'rejected' | undefined {
  const remaining = remainingOf(p)
  const turnout = p.yes + p.no + p.abstain
  if (turnout >= p.quorum && p.yes > 0 && p.yes / (p.yes + p.no + remaining) >= p.threshold) return 'passed'
  if (!passes({ ...p, yes: p.yes + remaining, abstain: p.abstain })) return 'rejected'
  return undefined
}

export const describeTally = (p: Pick<ProposalRow, 'yes' | 'no' | 'abstain' | 'quorum' | 'threshold'>) =>
  `${p.yes} yes, ${p.no} no, ${p.abstain} abstain; quorum ${p.quorum}, threshold ${p.threshold}`

export const tallyOf = (p: Pick<ProposalRow, 'yes' | 'no' | 'abstain' | 'veto'>) =>
  ({ yes: p.yes, no: p.no, abstain: p.abstain, veto: p.veto })
