//! The project's files as a zip archive, for the "download" button. Pure:
//! the archive is built in memory. Files are stored uncompressed (method 0,
//! the project's text files are small anyway), so the writer is a few
//! headers and a CRC-32 written here rather than the `zip` crate (~9 KB of
//! gzipped wasm with its error texts); the tests read the archives back with
//! that crate. No zip64: an archive past 4 GiB or 65,535 files is an error.

use super::ProjectFiles;

/// "Version needed to extract" 2.0, made by Unix (so the permissions in the
/// external attributes count), general-purpose flag bit 11: names are UTF-8.
const VERSION: u16 = 20;
const MADE_BY_UNIX: u16 = 3 << 8 | VERSION;
const UTF8_NAMES: u16 = 1 << 11;
/// A regular file, rw-r--r--, in the high half of the external attributes.
const UNIX_FILE_644: u32 = 0o100644 << 16;
/// MS-DOS date of 1980-01-01 (the earliest a zip can say), time 00:00.
const DOS_DATE: u16 = (1 << 5) | 1;

impl ProjectFiles {
    /// Every file's current version, under `folder/`, as a zip archive.
    pub fn to_zip(&self, folder: &str) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        let mut count: u16 = 0;
        for path in self.paths() {
            let content = self.read(path).map_err(|e| e.to_string())?;
            let name = format!("{folder}/{path}");
            let (offset, size, name_len) = (fits(out.len())?, fits(content.len())?, fits16(name.len())?);
            let crc = crc32(content.as_bytes());
            count = count.checked_add(1).ok_or("more than 65,535 files")?;
            // Local file header, then the bytes as they are.
            put32(&mut out, 0x0403_4b50);
            put16s(&mut out, &[VERSION, UTF8_NAMES, 0, 0, DOS_DATE]);
            put32s(&mut out, &[crc, size, size]);
            put16s(&mut out, &[name_len, 0]);
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(content.as_bytes());
            // Its central directory entry.
            put32(&mut central, 0x0201_4b50);
            put16s(&mut central, &[MADE_BY_UNIX, VERSION, UTF8_NAMES, 0, 0, DOS_DATE]);
            put32s(&mut central, &[crc, size, size]);
            put16s(&mut central, &[name_len, 0, 0, 0, 0]);
            put32s(&mut central, &[UNIX_FILE_644, offset]);
            central.extend_from_slice(name.as_bytes());
        }
        let (start, len) = (fits(out.len())?, fits(central.len())?);
        out.extend_from_slice(&central);
        fits(out.len())?;
        // End of central directory record.
        put32(&mut out, 0x0605_4b50);
        put16s(&mut out, &[0, 0, count, count]);
        put32s(&mut out, &[len, start]);
        put16(&mut out, 0);
        Ok(out)
    }
}

fn fits(n: usize) -> Result<u32, String> {
    u32::try_from(n).map_err(|_| "the project is too large for a zip archive (4 GiB)".to_string())
}

fn fits16(n: usize) -> Result<u16, String> {
    u16::try_from(n).map_err(|_| "a file name is too long for a zip archive".to_string())
}

fn put16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put16s(out: &mut Vec<u8>, vs: &[u16]) {
    vs.iter().for_each(|&v| put16(out, v));
}

fn put32s(out: &mut Vec<u8>, vs: &[u32]) {
    vs.iter().for_each(|&v| put32(out, v));
}

/// CRC-32 (IEEE, reflected, as zip and gzip use), four bits at a time
/// through a 16-entry table: small code, fast enough for project files.
fn crc32(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 16] = {
        let mut t = [0u32; 16];
        let mut i = 0;
        while i < 16 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 4 {
                c = if c & 1 == 1 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
                k += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    };
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        crc = TABLE[(crc & 15) as usize] ^ (crc >> 4);
        crc = TABLE[(crc & 15) as usize] ^ (crc >> 4);
    }
    !crc
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Read};

    use super::*;

    #[test]
    fn the_crc_is_the_standard_one() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn the_zip_holds_every_current_file_under_the_folder() {
        let mut files = ProjectFiles::default();
        files.write("index.html", "<p>v1</p>").unwrap();
        files.write("index.html", "<p>v2</p>").unwrap();
        files.write("docs/prd.md", "# PRD\nünïcode").unwrap();
        let bytes = files.to_zip("my-game").unwrap();
        let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
        let mut names: Vec<String> = archive.file_names().map(str::to_string).collect();
        names.sort_unstable();
        assert_eq!(names, ["my-game/docs/prd.md", "my-game/index.html"]);
        let mut text = String::new();
        archive.by_name("my-game/index.html").unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "<p>v2</p>", "the current version only");
        text.clear();
        // Reading to the end checks the stored CRC against the bytes.
        archive.by_name("my-game/docs/prd.md").unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "# PRD\nünïcode");
        let entry = archive.by_name("my-game/docs/prd.md").unwrap();
        assert_eq!(entry.compression(), zip::CompressionMethod::Stored);
        assert_eq!(entry.unix_mode(), Some(0o100644));
    }

    #[test]
    fn an_empty_project_is_an_empty_archive() {
        let bytes = ProjectFiles::default().to_zip("p").unwrap();
        assert_eq!(zip::ZipArchive::new(Cursor::new(bytes)).unwrap().len(), 0);
    }
}
