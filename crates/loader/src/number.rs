//! Hand-written number parsing over byte tokens: no UTF-8 check, no
//! allocation, no `str::parse` on the common path.

use dyngraph_core::ParseErrorKind;

/// Longest token quoted back in an error message.
const TOKEN_QUOTE_LIMIT: usize = 40;

/// A token as text for an error message, shortened to a readable length.
pub(crate) fn quote(token: &[u8]) -> String {
    let shown = &token[..token.len().min(TOKEN_QUOTE_LIMIT)];
    let mut text = String::from_utf8_lossy(shown).into_owned();
    if token.len() > TOKEN_QUOTE_LIMIT {
        text.push('…');
    }
    text
}

/// Parses a vertex id: decimal digits only, at most `u32::MAX`.
///
/// Errors: `NegativeId` for `-digits`, `IdTooLarge` past `u32::MAX`,
/// `NonNumeric` for anything else.
#[inline]
pub(crate) fn parse_vertex(token: &[u8], expected: &'static str) -> Result<u32, ParseErrorKind> {
    let mut value: u64 = 0;
    let mut all_digits = !token.is_empty();
    for &byte in token {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            all_digits = false;
            break;
        }
        // Saturate well above u32::MAX so long runs of digits cannot
        // overflow; anything above u32::MAX is an error anyway.
        value = (value * 10 + u64::from(digit)).min(1 << 40);
    }
    if all_digits {
        return u32::try_from(value).map_err(|_| ParseErrorKind::IdTooLarge {
            token: quote(token),
        });
    }
    if token.len() > 1 && token[0] == b'-' && token[1..].iter().all(u8::is_ascii_digit) {
        return Err(ParseErrorKind::NegativeId);
    }
    Err(ParseErrorKind::NonNumeric {
        token: quote(token),
        expected,
    })
}

/// Parses an unsigned 64-bit integer (a timestamp or a header count).
///
/// Errors: `NegativeValue` for `-digits`, `Other` past `u64::MAX`,
/// `NonNumeric` for anything else.
#[inline]
pub(crate) fn parse_u64(token: &[u8], expected: &'static str) -> Result<u64, ParseErrorKind> {
    let non_numeric = || {
        if token.len() > 1 && token[0] == b'-' && token[1..].iter().all(u8::is_ascii_digit) {
            return ParseErrorKind::NegativeValue {
                token: quote(token),
                expected,
            };
        }
        ParseErrorKind::NonNumeric {
            token: quote(token),
            expected,
        }
    };
    if token.is_empty() {
        return Err(non_numeric());
    }
    let mut value: u64 = 0;
    for &byte in token {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return Err(non_numeric());
        }
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(digit)))
            .ok_or_else(|| {
                ParseErrorKind::Other(format!(
                    "{expected} {} does not fit in 64 bits",
                    quote(token)
                ))
            })?;
    }
    Ok(value)
}

/// Exact powers of ten representable in an `f64` (Clinger's fast path).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Parses an `f32`.
///
/// The common shapes (`114`, `-0.25`, `3.5e-3`, up to 19 significant digits
/// and a decimal exponent within ±22) take Clinger's fast path: the digits
/// as an exact integer, one exact multiply or divide by a power of ten in
/// `f64` (correctly rounded), then rounded to `f32`. Anything else (`inf`,
/// `NaN`, long mantissas, big exponents) falls back to the standard
/// library's correctly rounding parser on that token only.
#[inline]
pub(crate) fn parse_f32(token: &[u8], expected: &'static str) -> Result<f32, ParseErrorKind> {
    if let Some(value) = parse_f32_fast(token) {
        return Ok(value);
    }
    let value = std::str::from_utf8(token)
        .ok()
        .and_then(|text| text.parse::<f32>().ok())
        .ok_or_else(|| ParseErrorKind::NonNumeric {
            token: quote(token),
            expected,
        })?;
    // `1e400` parses as infinity: refused, unless infinity is what the
    // text says.
    if value.is_infinite() {
        let magnitude = token
            .strip_prefix(b"-")
            .or_else(|| token.strip_prefix(b"+"))
            .unwrap_or(token);
        let spelled =
            magnitude.eq_ignore_ascii_case(b"inf") || magnitude.eq_ignore_ascii_case(b"infinity");
        if !spelled {
            return Err(ParseErrorKind::ValueOutOfRange {
                token: quote(token),
                expected,
            });
        }
    }
    Ok(value)
}

#[inline]
fn parse_f32_fast(token: &[u8]) -> Option<f32> {
    let (negative, mut rest) = match token.split_first()? {
        (b'-', rest) => (true, rest),
        (b'+', rest) => (false, rest),
        _ => (false, token),
    };
    let mut mantissa: u64 = 0;
    let mut digits = 0u32;
    let mut scale: i32 = 0;
    let mut any_digit = false;
    while let Some((&byte, tail)) = rest.split_first() {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        any_digit = true;
        if mantissa != 0 || digit != 0 {
            digits += 1;
        }
        mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(digit));
        rest = tail;
    }
    if let Some((b'.', tail)) = rest.split_first() {
        rest = tail;
        while let Some((&byte, tail)) = rest.split_first() {
            let digit = byte.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            any_digit = true;
            if mantissa != 0 || digit != 0 {
                digits += 1;
            }
            mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(digit));
            scale -= 1;
            rest = tail;
        }
    }
    if !any_digit || digits > 19 {
        return None;
    }
    if let Some((b'e' | b'E', tail)) = rest.split_first() {
        let (exponent_negative, mut tail) = match tail.split_first()? {
            (b'-', t) => (true, t),
            (b'+', t) => (false, t),
            _ => (false, tail),
        };
        let mut exponent: i32 = 0;
        if tail.is_empty() {
            return None;
        }
        while let Some((&byte, t)) = tail.split_first() {
            let digit = byte.wrapping_sub(b'0');
            if digit > 9 || exponent > 1000 {
                return None;
            }
            exponent = exponent * 10 + i32::from(digit);
            tail = t;
        }
        scale += if exponent_negative {
            -exponent
        } else {
            exponent
        };
        rest = tail;
    }
    if !rest.is_empty() || mantissa > (1 << 53) || scale.unsigned_abs() > 22 {
        return None;
    }
    let mut value = mantissa as f64;
    if scale < 0 {
        value /= POW10[scale.unsigned_abs() as usize];
    } else {
        value *= POW10[scale as usize];
    }
    // An f64 exactly halfway between two f32s may be a rounded-to-halfway
    // decimal that is really above or below it; rounding again would then
    // be wrong (double rounding). Leave those rare values to the exact
    // parser. (Every fast-path value is a normal f32: at most 2^53 * 1e22,
    // at least 1e-22.)
    const DISCARDED: u64 = (1 << 29) - 1;
    if value.to_bits() & DISCARDED == 1 << 28 {
        return None;
    }
    let value = value as f32;
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertices() {
        assert_eq!(parse_vertex(b"0", "id"), Ok(0));
        assert_eq!(parse_vertex(b"000123", "id"), Ok(123));
        assert_eq!(parse_vertex(b"4294967295", "id"), Ok(u32::MAX));
        assert!(matches!(
            parse_vertex(b"4294967296", "id"),
            Err(ParseErrorKind::IdTooLarge { .. })
        ));
        assert!(matches!(
            parse_vertex(b"99999999999999999999999999", "id"),
            Err(ParseErrorKind::IdTooLarge { .. })
        ));
        assert_eq!(parse_vertex(b"-3", "id"), Err(ParseErrorKind::NegativeId));
        for bad in [&b"-"[..], b"+3", b"1x", b"x", b"1.0", b""] {
            assert!(
                matches!(
                    parse_vertex(bad, "id"),
                    Err(ParseErrorKind::NonNumeric { .. })
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn u64s() {
        assert_eq!(parse_u64(b"1082040961", "ts"), Ok(1082040961));
        assert_eq!(parse_u64(b"18446744073709551615", "ts"), Ok(u64::MAX));
        assert!(matches!(
            parse_u64(b"18446744073709551616", "ts"),
            Err(ParseErrorKind::Other(_))
        ));
        assert!(matches!(
            parse_u64(b"-1", "ts"),
            Err(ParseErrorKind::NegativeValue { .. })
        ));
        assert!(matches!(
            parse_u64(b"-", "ts"),
            Err(ParseErrorKind::NonNumeric { .. })
        ));
    }

    #[test]
    fn floats_agree_with_std() {
        let cases = [
            "0",
            "1",
            "114",
            "-0.25",
            "3.5e-3",
            "1E5",
            "+2.5",
            ".5",
            "5.",
            "1e22",
            "1e23",
            "0.1",
            "123456789012345678901234",
            "1e-45",
            "3.4028235e38",
            "inf",
            "-inf",
            "NaN",
            "0.000000000000000000000000000001",
            "16777217",
            "1.00000005960464477539",
            "1.0000000596046448",
            "1.0000000596046447",
        ];
        for case in cases {
            let ours = parse_f32(case.as_bytes(), "w").unwrap();
            let std: f32 = case.parse().unwrap();
            assert!(
                ours.to_bits() == std.to_bits() || (ours.is_nan() && std.is_nan()),
                "{case}: {ours} vs {std}"
            );
        }
        for bad in ["", "-", "e5", "1e", "1.2.3", "abc", "1,5"] {
            assert!(parse_f32(bad.as_bytes(), "w").is_err(), "{bad}");
        }
    }

    /// `1e400` was stored as infinity without a word.
    #[test]
    fn a_weight_past_f32s_range_is_refused_and_infinity_spelled_out_is_kept() {
        for big in [
            "1e400",
            "-1e39",
            "3.5e38",
            "99999999999999999999999999999999999999999",
        ] {
            assert!(
                matches!(
                    parse_f32(big.as_bytes(), "weight"),
                    Err(ParseErrorKind::ValueOutOfRange { .. })
                ),
                "{big}"
            );
        }
        for spelled in ["inf", "-INF", "+Infinity"] {
            assert!(
                parse_f32(spelled.as_bytes(), "weight")
                    .unwrap()
                    .is_infinite()
            );
        }
    }
}
