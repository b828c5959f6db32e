//! The project's files as a zip archive, for the "download" button. Pure:
//! the archive is built in memory. Files are stored uncompressed (the zip
//! crate without its compression back ends keeps the site small; the
//! project's text files are small anyway).

use std::io::{Cursor, Write};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::ProjectFiles;

impl ProjectFiles {
    /// Every file's current version, under `folder/`, as a zip archive.
    pub fn to_zip(&self, folder: &str) -> Result<Vec<u8>, String> {
        let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
        let options = SimpleFileOptions::default().compression_method(CompressionMethod::Stored).unix_permissions(0o644);
        for path in self.paths() {
            let content = self.read(path).map_err(|e| e.to_string())?;
            zip.start_file(format!("{folder}/{path}"), options).map_err(|e| e.to_string())?;
            zip.write_all(content.as_bytes()).map_err(|e| e.to_string())?;
        }
        Ok(zip.finish().map_err(|e| e.to_string())?.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn the_zip_holds_every_current_file_under_the_folder() {
        let mut files = ProjectFiles::default();
        files.write("index.html", "<p>v1</p>").unwrap();
        files.write("index.html", "<p>v2</p>").unwrap();
        files.write("docs/prd.md", "# PRD\nünïcode").unwrap();
        let bytes = files.to_zip("my-game").unwrap();
        let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
        let mut names: Vec<String> = archive.file_names().map(str::to_string).collect();
        names.sort();
        assert_eq!(names, ["my-game/docs/prd.md", "my-game/index.html"]);
        let mut text = String::new();
        archive.by_name("my-game/index.html").unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "<p>v2</p>", "the current version only");
        text.clear();
        archive.by_name("my-game/docs/prd.md").unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "# PRD\nünïcode");
    }

    #[test]
    fn an_empty_project_is_an_empty_archive() {
        let bytes = ProjectFiles::default().to_zip("p").unwrap();
        assert_eq!(zip::ZipArchive::new(Cursor::new(bytes)).unwrap().len(), 0);
    }
}
