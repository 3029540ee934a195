// A wall-clock time in an IANA zone, made an instant with the offset in force ON THAT DATE (a zone's
// offset today says nothing about July). At a change of offset the rule is Temporal's "compatible" (and
// RFC 5545's): a time in the skipped hour moves on by the gap (02:30 on Berlin's spring-forward day is
// 03:30 summer time), a time in the repeated hour is its first occurrence.

/** A date and time on a zone's clock; `month` is 1–12. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second?: number;
  millisecond?: number;
}

/** One formatter per zone: building an Intl.DateTimeFormat costs far more than using one. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** The zone's offset from UTC at the instant `ms`, in milliseconds (east positive). */
export function zoneOffsetMs(zone: string, ms: number): number {
  const parts = formatter(zone).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return local - Math.floor(ms / 1000) * 1000;
}

/** The instant `wall` names on `zone`'s clock (see the file's header for the skipped and repeated hours). */
export function zonedInstant(wall: WallTime, zone: string): Date {
  const utc = new Date(0);
  utc.setUTCFullYear(wall.year, wall.month - 1, wall.day);
  utc.setUTCHours(wall.hour, wall.minute, wall.second ?? 0, wall.millisecond ?? 0);
  const asUtc = utc.getTime();
  // No zone changes its offset twice within two days, so the offsets a day either side are the candidates.
  const before = zoneOffsetMs(zone, asUtc - 86_400_000);
  const after = zoneOffsetMs(zone, asUtc + 86_400_000);
  const fits = [before, after].map((offset) => asUtc - offset).filter((ms) => asUtc - zoneOffsetMs(zone, ms) === ms);
  // Both fit: the repeated hour (or no change at all), take the first. None fits: the skipped hour, read
  // with the offset before the gap, which lands as far past the gap's end as the time was past its start.
  return new Date(fits.length > 0 ? Math.min(...fits) : asUtc - before);
}

/** `Tue 24 Dec 2026, 18:00 (Asia/Kuwait)`. */
export function formatInZone(at: Date, zone: string): string {
  const text = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(at);
  return `${text} (${zone})`;
}
