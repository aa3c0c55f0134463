import { screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { renderWithProviders } from '@/testing/render'
import { deltaResultSchema, type DeltaResult } from '@/api/history/delta-request'
import { DeltaVerdict } from './delta-verdict'

const base = {
  status: 'validated',
  validation_code: 'ok',
  search_id: 41,
  lead_count: 37,
  required_credits: 37,
  available_credits: 500,
  freshness: {
    original_exported_at: '2026-10-01T10:00:00Z',
    original_lead_count: 120,
    current_total: 157,
    new_since_export: 37,
    capped: false,
  },
  freshness_checked_at: '2026-11-23T12:00:00Z',
}

const verdict = (patch: Record<string, unknown>): DeltaResult => deltaResultSchema.parse({ ...base, ...patch })

function figure(label: string) {
  const dt = screen.getByText(label, { selector: 'dt' })
  return dt.nextElementSibling?.textContent
}

describe('DeltaVerdict', () => {
  it('ok on an uncapped export: only the new leads, with every freshness figure', () => {
    renderWithProviders(<DeltaVerdict result={verdict({})} />)
    expect(screen.getByText('Fresh data is available')).toBeInTheDocument()
    expect(screen.getByText(/37 new leads since your export of/)).toBeInTheDocument()
    expect(figure('Leads in the original export')).toBe('120')
    expect(figure('Leads matching now')).toBe('157')
    expect(figure('New since the export')).toBe('37')
    expect(figure('Credits required')).toBe('37')
    expect(figure('Credits available')).toBe('500')
    expect(figure('Original export capped')).toBe('No')
  })

  it('ok on a capped export: the full expansion and the difference to pay', () => {
    const r = verdict({
      lead_count: 900,
      required_credits: 800,
      freshness: { ...base.freshness, original_lead_count: 100, current_total: 900, new_since_export: 5, capped: true },
    })
    renderWithProviders(<DeltaVerdict result={r} />)
    expect(screen.getByText(/was capped at 100 leads\. The full search now has 900 leads/)).toBeInTheDocument()
    expect(figure('Original export capped')).toBe('Yes')
    expect(figure('Credits required')).toBe('800')
  })

  it('no_new_leads says nothing will be charged', () => {
    renderWithProviders(
      <DeltaVerdict result={verdict({ status: 'rejected', validation_code: 'no_new_leads', lead_count: 0, required_credits: 0 })} />,
    )
    expect(screen.getByText('No new leads')).toBeInTheDocument()
    expect(screen.getByText(/nothing charged/)).toBeInTheDocument()
  })

  it('insufficient_credits shows required against available, and the way to plans', () => {
    renderWithProviders(
      <DeltaVerdict
        result={verdict({ status: 'rejected', validation_code: 'insufficient_credits', required_credits: 1500, available_credits: 20 })}
      />,
    )
    expect(screen.getByText('Not enough credits')).toBeInTheDocument()
    expect(screen.getByText('This needs 1,500 credits and 20 are available.')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'See plans' })).toHaveAttribute('href', '/plans')
  })

  it('fresh_exports_not_allowed explains the plan and links to plans', () => {
    renderWithProviders(<DeltaVerdict result={verdict({ status: 'rejected', validation_code: 'fresh_exports_not_allowed' })} />)
    expect(screen.getByText('Your plan does not include fresh data')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'See plans' })).toHaveAttribute('href', '/plans')
    // no figures table: credits required/available mean nothing when the plan excludes fresh data
    expect(screen.queryByText('Credits required')).not.toBeInTheDocument()
    expect(screen.queryByText('Leads matching now')).not.toBeInTheDocument()
  })

  it('not_completed asks to wait for the original export', () => {
    renderWithProviders(<DeltaVerdict result={verdict({ status: 'rejected', validation_code: 'not_completed' })} />)
    expect(screen.getByText('This export has not completed')).toBeInTheDocument()
  })

  it('an unknown code is shown, not a crash', () => {
    renderWithProviders(<DeltaVerdict result={verdict({ status: 'rejected', validation_code: 'quota_frozen' })} />)
    expect(screen.getByText(/refused the request \(quota_frozen\)/)).toBeInTheDocument()
  })

  it('a service that ignored dry_run: says plainly it was started and charged', () => {
    renderWithProviders(<DeltaVerdict result={verdict({ status: 'started', search_id: 77, lead_count: 37, required_credits: 37 })} />)
    expect(screen.getByText('The export was started and charged')).toBeInTheDocument()
    expect(screen.getByText(/charged 37 credits/)).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Open the export' })).toHaveAttribute('href', '/exports/77')
  })
})
