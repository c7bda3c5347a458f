import { describe, expect, it } from 'vitest'
import { keepText, MASK, maskText, newInput } from '../../src/services/cumulative-text.ts'

const masked = (count: number) => MASK.repeat(count)

/** What the session keeps after `text` arrives on `kept` (`secret`: typed at a PIN prompt). */
const after = (kept: string, text: string, secret = false) => {
  const input = newInput(kept, text)
  return input === undefined ? kept : keepText(kept, input, text, secret)
}

describe('cumulative text', () => {
  it('takes the same text or an earlier one (the first hop\'s empty text included) as a retry', () => {
    expect(newInput('2*2*Jane', '2*2*Jane')).toBeUndefined()
    expect(newInput('2*2*Jane', '2*2')).toBeUndefined()
    expect(newInput('2*2*Jane', '')).toBeUndefined()
    expect(newInput('', '')).toBeUndefined()
  })

  it('brings exactly the suffix of an extended text as one input, * and 0 included', () => {
    expect(newInput('2*2', '2*2*Mary*Ann 0')).toEqual({ value: 'Mary*Ann 0', extends: true })
    expect(newInput('1', '1**')).toEqual({ value: '*', extends: true })
  })

  it('takes a text that neither repeats nor extends the kept one whole (latest-input aggregators)', () => {
    expect(newInput('2*2*Jane', '2*3')).toEqual({ value: '2*3', extends: false })
    expect(newInput('12345', '1')).toEqual({ value: '1', extends: false })
  })

  it('masks what is typed at a PIN prompt but its *, and still tells earlier texts and new inputs apart', () => {
    const kept = after('2*1*C1A2B3C4D', '2*1*C1A2B3C4D*11111*11112', true)
    expect(kept).toBe(`2*1*C1A2B3C4D*${masked(5)}*${masked(5)}`)
    expect(kept).not.toContain('1111')
    expect(newInput(kept, '2*1*C1A2B3C4D*11111*11112')).toBeUndefined()
    expect(newInput(kept, '2*1*C1A2B3C4D*11111')).toBeUndefined()
    expect(newInput(kept, '2*1*C1A2B3C4D*11111*11112*48213')).toEqual({ value: '48213', extends: true })
    expect(maskText('1*22')).toBe(`${masked(1)}*${masked(2)}`)
  })

  it('compares a # the user typed like any other character', () => {
    expect(newInput('#', '1')).toEqual({ value: '1', extends: false })
    expect(newInput('2*2*##', '2*2*Jo')).toEqual({ value: '2*2*Jo', extends: false })
    expect(newInput('2*2*##', '2*2*##')).toBeUndefined()
  })

  it('keeps no text for a PIN taken whole, so the next PIN of the same length is a new input', () => {
    expect(after('2*1', '11112', true)).toBe('')
    expect(newInput('', '48213')).toEqual({ value: '48213', extends: false })
    expect(after('2*1', '48213*', true)).toBe('')
  })
})
