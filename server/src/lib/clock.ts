/**
 * The service clock. Everything time-dependent (token expiry, link expiry, "created after",
 * credit lot expiry) reads it, so the test clock (LEADS_TEST_CLOCK=1, POST /api/_test/clock/)
 * can move the whole service forward, like a payment provider's test clock.
 */
export class Clock {
  private offsetMs = 0
  now(): Date {
    return new Date(Date.now() + this.offsetMs)
  }
  nowSeconds(): number {
    return Math.floor(this.now().getTime() / 1000)
  }
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000
  }
}
