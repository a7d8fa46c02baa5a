/// Calendar arithmetic for dates stored as seconds since 1970-01-01T00:00:00Z, in UTC,
/// proleptic Gregorian, without Foundation (exact, and cheap enough for the row loop).
///
/// The day arithmetic is Howard Hinnant's `days_from_civil` / `civil_from_days`.
enum CivilDate {
    /// Dates further than this from 1970 (about 31 million years) have no civil form here.
    static let limit: Double = 1e15

    /// Days since 1970-01-01 of a proleptic Gregorian date (linear in `day`).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The number of days of a month (1–12) of a proleptic Gregorian year.
    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The year, month (1–12) and day (1–31) of a day number counted from 1970-01-01.
    static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Splits a date into its day number and the whole seconds into that day (floored,
    /// so 1969-12-31T23:59:59.5 is day -1, second 86399). nil when not finite or too far.
    static func split(_ seconds: Double) -> (days: Int64, secondOfDay: Int64)? {
        guard seconds.isFinite, abs(seconds) < limit else { return nil }
        let whole = Int64(seconds.rounded(.down))
        var days = whole / 86_400
        var rest = whole % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        return (days, rest)
    }

    static func components(_ seconds: Double) -> (year: Int64, month: Int64, day: Int64)? {
        guard let (days, _) = split(seconds) else { return nil }
        return civilFromDays(days)
    }

    /// `yyyy-MM-dd'T'HH:mm:ss'Z'`, fractional seconds dropped (floored).
    static func format(_ seconds: Double) -> String? {
        guard let (days, secondOfDay) = split(seconds) else { return nil }
        let (year, month, day) = civilFromDays(days)
        let yearText = year < 0 ? "-" + pad(-year, 4) : pad(year, 4)
        return yearText + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":"
            + pad(secondOfDay % 60, 2) + "Z"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Parses the ISO-8601 forms SQLite's date functions accept:
    /// `YYYY-MM-DD`, optionally followed by `T` or spaces and `HH:MM`, `HH:MM:SS` or
    /// `HH:MM:SS.fff`, optionally followed by `Z` or a `±HH:MM` offset; surrounding
    /// spaces allowed. Fields must name a real moment: month 1–12, a day the month has
    /// (February 30th is refused, where SQLite would roll it over into March), hour 0–24,
    /// minute and second 0–59. Returns seconds since 1970, or nil when unparseable.
    static func parse(_ text: String) -> Double? {
        // Over the string's own bytes: a conversion pushed down parses a date per value.
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var scanner = ByteScanner(bytes)
        scanner.skipSpaces()
        guard let year = scanner.digits(4), scanner.take(UInt8(ascii: "-")),
              let month = scanner.digits(2), (1...12).contains(month), scanner.take(UInt8(ascii: "-")),
              let day = scanner.digits(2), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day) * 86_400)

        let timeStart = scanner.position
        if scanner.take(UInt8(ascii: "T")) || scanner.take(UInt8(ascii: " ")) {
            scanner.skipSpaces()
            if let hour = scanner.digits(2) {
                guard hour <= 24, scanner.take(UInt8(ascii: ":")),
                      let minute = scanner.digits(2), minute <= 59 else { return nil }
                var second: Double = 0
                if scanner.take(UInt8(ascii: ":")) {
                    guard let whole = scanner.digits(2), whole <= 59 else { return nil }
                    second = Double(whole)
                    if scanner.take(UInt8(ascii: ".")) {
                        var scale = 0.1
                        guard scanner.peekDigit != nil else { return nil }
                        while let digit = scanner.peekDigit {
                            second += Double(digit) * scale
                            scale /= 10
                            scanner.position += 1
                        }
                    }
                }
                seconds += Double(hour * 3600 + minute * 60) + second
                scanner.skipSpaces()
                if scanner.take(UInt8(ascii: "Z")) || scanner.take(UInt8(ascii: "z")) {
                    // UTC
                } else if let sign = scanner.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                    scanner.position += 1
                    guard let offsetHours = scanner.digits(2), offsetHours <= 14, scanner.take(UInt8(ascii: ":")),
                          let offsetMinutes = scanner.digits(2), offsetMinutes <= 59 else { return nil }
                    let offset = Double(offsetHours * 3600 + offsetMinutes * 60)
                    seconds += sign == UInt8(ascii: "+") ? -offset : offset
                }
            } else {
                scanner.position = timeStart  // trailing spaces after a date alone
            }
        }
        scanner.skipSpaces()
        return scanner.atEnd ? seconds : nil
    }
}
