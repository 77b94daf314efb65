//! The proleptic Gregorian calendar that PostgreSQL's dates, the key layer's dates and X.509
//! validity times all count in: one copy of the month lengths and of the day numbers.

/// Whether astronomical year `y` (1 BC is 0) is a leap year.
pub fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// The days of month `m` of astronomical year `y`; `m` is 1-12 (every caller checks it
/// first: a month out of range is its own error there).
pub fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        2 => 28,
        _ => 31,
    }
}

/// Days from 1970-01-01 to the date `y-m-d`, `y` astronomical (Howard Hinnant's
/// `days_from_civil`).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against day counts `date` gives (`date -u -d 'Y-M-D' +%s` / 86400) and the calendar's
    /// rules at the century years.
    #[test]
    fn days_and_months() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 1, 1), 10_957);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(days_from_civil(0, 3, 1), -719_468);
        assert_eq!(days_in_month(2000, 2), 29);
        assert_eq!(days_in_month(1900, 2), 28);
        assert_eq!(days_in_month(2024, 2), 29);
        assert_eq!(days_in_month(-4, 2), 29);
        assert_eq!(days_in_month(-100, 2), 28);
        assert_eq!(days_in_month(2023, 4), 30);
        assert_eq!(days_in_month(2023, 12), 31);
        // Every day of 400 years, one after another.
        let mut n = days_from_civil(1600, 1, 1);
        for y in 1600..2000 {
            for m in 1..=12 {
                for d in 1..=days_in_month(y, m) {
                    assert_eq!(days_from_civil(y, m, d), n, "{y}-{m}-{d}");
                    n += 1;
                }
            }
        }
        assert_eq!(n, days_from_civil(2000, 1, 1));
    }
}
