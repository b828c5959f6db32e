//! A server-sent-events decoder: the WHATWG "interpreting an event stream"
//! algorithm as a pure function of the bytes fed so far.
//!
//! Bytes may arrive split anywhere, including inside a UTF-8 sequence or
//! between the CR and LF of a CRLF. Lines end at LF, CR or CRLF; one leading
//! BOM is dropped; `:` lines are comments; an event without a terminating
//! blank line at EOF is discarded, as the current standard says.
//!
//! It deliberately does not know any provider's payloads (`[DONE]`, JSON),
//! does not reconnect, and ignores `retry` (no clock here to use it with).

use std::borrow::Cow;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` type, or `None` for the default type `message`.
    pub event: Option<String>,
    /// The data lines joined with `\n`.
    pub data: String,
    /// The last event ID in force at dispatch, or `None` when it is empty.
    pub id: Option<String>,
}

/// Incremental event-stream decoder. Feed it network chunks as they come.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseDecoder {
    lines: LineDecoder,
    fields: Fields,
}

/// Splits bytes into lines at LF, CR or CRLF, decoding each complete line as
/// UTF-8 (invalid bytes become U+FFFD). Bytes are buffered until a line ends,
/// so a code point split across chunks is decoded whole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineDecoder {
    pending: Vec<u8>,
    /// The previous chunk ended in CR: an LF opening the next chunk belongs to
    /// that CRLF and must not end a second, empty line.
    skip_lf: bool,
}

impl SseDecoder {
    /// Decode another chunk, returning every event it completes.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let Self { lines, fields } = self;
        lines.feed_with(bytes, |line| {
            if let Some(event) = fields.process_line(line) {
                events.push(event);
            }
        });
        events
    }

    /// The end of the stream. Always empty: WHATWG discards an unterminated
    /// line and any event not yet closed by a blank line. Callers still call
    /// it so that EOF is stated in one place.
    pub fn finish(self) -> Vec<SseEvent> {
        Vec::new()
    }
}

/// The buffers the algorithm fills line by line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Fields {
    /// Whether the first line was seen (only it may carry the BOM).
    started: bool,
    data: String,
    event_type: String,
    last_event_id: String,
}

impl Fields {
    fn process_line(&mut self, line: &str) -> Option<SseEvent> {
        let line = if self.started {
            line
        } else {
            self.started = true;
            line.strip_prefix('\u{FEFF}').unwrap_or(line)
        };
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => value.clone_into(&mut self.event_type),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            "id" if !value.contains('\0') => value.clone_into(&mut self.last_event_id),
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event_type = std::mem::take(&mut self.event_type);
        if self.data.is_empty() {
            return None;
        }
        let mut data = std::mem::take(&mut self.data);
        if data.ends_with('\n') {
            data.pop();
        }
        Some(SseEvent {
            event: (!event_type.is_empty()).then_some(event_type),
            data,
            id: (!self.last_event_id.is_empty()).then(|| self.last_event_id.clone()),
        })
    }
}

impl LineDecoder {
    /// Decode another chunk, returning every line it completes (without terminators).
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<String> {
        let mut lines = Vec::new();
        self.feed_with(bytes, |line| lines.push(line.to_owned()));
        lines
    }

    /// The end of the input: the unterminated last line, if there is one.
    pub fn finish(self) -> Option<String> {
        (!self.pending.is_empty()).then(|| decode(&self.pending).into_owned())
    }

    /// Call `on_line` with every line this chunk completes.
    fn feed_with(&mut self, bytes: &[u8], mut on_line: impl FnMut(&str)) {
        let mut start = 0;
        if self.skip_lf {
            match bytes.first() {
                None => return,
                Some(b'\n') => start = 1,
                Some(_) => {}
            }
            self.skip_lf = false;
        }
        while let Some(end) = find_line_end(&bytes[start..]) {
            let i = start + end;
            let byte = bytes[i];
            if self.pending.is_empty() {
                on_line(&decode(&bytes[start..i]));
            } else {
                self.pending.extend_from_slice(&bytes[start..i]);
                on_line(&decode(&self.pending));
                self.pending.clear();
            }
            start = i + 1;
            if byte == b'\r' {
                match bytes.get(start) {
                    Some(b'\n') => start += 1,
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
        }
        self.pending.extend_from_slice(&bytes[start..]);
    }
}

/// UTF-8 with invalid bytes replaced by U+FFFD; valid input (the usual case)
/// is borrowed, not copied.
fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The index of the first CR or LF. Every received byte passes through
/// here, so it looks at eight bytes at a time and only then at single ones.
fn find_line_end(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // True when some byte of `word` is zero (the classic SWAR test).
    let has_zero_byte = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS != 0;
    let mut skipped = 0;
    // Plain indexing rather than `chunks_exact`: it stays fast in debug builds,
    // where the tests feed large recordings tens of thousands of times.
    while skipped + 8 <= bytes.len() {
        let b = &bytes[skipped..skipped + 8];
        let word = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        if has_zero_byte(word ^ (ONES * u64::from(b'\n'))) || has_zero_byte(word ^ (ONES * u64::from(b'\r'))) {
            break;
        }
        skipped += 8;
    }
    bytes[skipped..].iter().position(|&b| b == b'\n' || b == b'\r').map(|i| skipped + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decode `chunks` and render each event as `type|data|id`.
    fn check(chunks: &[&[u8]], want: &[&str]) {
        let mut decoder = SseDecoder::default();
        let mut got = Vec::new();
        for chunk in chunks {
            got.extend(decoder.feed(chunk));
        }
        got.extend(decoder.finish());
        let got: Vec<String> = got
            .iter()
            .map(|e| format!("{}|{}|{}", e.event.as_deref().unwrap_or("-"), e.data, e.id.as_deref().unwrap_or("-")))
            .collect();
        assert_eq!(got, want, "chunks {chunks:?}");
    }

    #[test]
    fn decodes_events() {
        check(&[b"data: a\n\n"], &["-|a|-"]);
        check(&[b"data: a\r\n\r\n"], &["-|a|-"]);
        check(&[b"data: a\r\r"], &["-|a|-"]);
        check(&[b"data: a\r", b"\n", b"\r\n"], &["-|a|-"]);
        check(&[b"data: a\r", b"", b"\ndata: b\n\n"], &["-|a\nb|-"]);
        check(&[b"event: x\ndata: 1\ndata: 2\n\n"], &["x|1\n2|-"]);
        check(&[b"event: x\n\ndata: y\n\n"], &["-|y|-"]);
        check(&[b"id: 7\ndata: a\n\ndata: b\n\n"], &["-|a|7", "-|b|7"]);
        check(&[b"id: 7\ndata: a\n\nid\ndata: b\n\n"], &["-|a|7", "-|b|-"]);
        check(&[b"id: 7\0\ndata: a\n\n"], &["-|a|-"]);
        check(&[b": comment\ndata:a\n\n"], &["-|a|-"]);
        check(&[b"Data: a\n\n"], &[]);
        check(&[b"data: a\n"], &[]);
        check(&[b"data: a"], &[]);
        check(&[b"\xEF\xBB", b"\xBFdata: a\n\n\xEF\xBB\xBFdata: b\n\n"], &["-|a|-"]);
        check(&[b"data: \xD0", b"\xB8\n\n"], &["-|\u{438}|-"]);
        check(&[b"data: \xFF\n\n"], &["-|\u{FFFD}|-"]);
        check(&[b"retry: 10\ndata: a\n\n"], &["-|a|-"]);
    }

    #[test]
    fn finds_line_ends_at_any_offset() {
        for len in 0..24 {
            for at in 0..len {
                for terminator in [b'\n', b'\r'] {
                    let mut bytes = vec![b'x'; len];
                    bytes[at] = terminator;
                    assert_eq!(find_line_end(&bytes), Some(at), "len {len} at {at}");
                    bytes[at] = terminator ^ 0x80;
                    assert_eq!(find_line_end(&bytes), None, "len {len} at {at}");
                }
            }
        }
    }

    #[test]
    fn line_decoder_flushes_remainder() {
        let mut lines = LineDecoder::default();
        assert_eq!(lines.feed(b"a\r"), ["a"]);
        assert_eq!(lines.feed(b"\nb"), Vec::<String>::new());
        assert_eq!(lines.finish().as_deref(), Some("b"));
    }
}
