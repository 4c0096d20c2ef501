//! Where each key of a scenario file is: a map from key path (`materials.shell.k_s`,
//! `bodies[2].radius`) to its byte spans, built from toml's spanned document tree. It turns a
//! byte offset into line/column and an error span into the key it belongs to.

use std::ops::Range;
use toml::de::{DeTable, DeValue};

/// Spans of one key: the key itself and its value.
#[derive(Clone, Debug)]
pub struct KeySpan {
    pub path: String,
    pub key: Range<usize>,
    pub value: Range<usize>,
}

/// Every key path of a document with its spans, in document order of the tree walk.
#[derive(Clone, Debug, Default)]
pub struct SpanIndex {
    pub keys: Vec<KeySpan>,
    /// Arrays of plain values: key path and length.
    pub arrays: Vec<(String, usize)>,
    line_starts: Vec<usize>,
}

impl SpanIndex {
    /// Indexes `text` (which must already parse as TOML; on a syntax error returns it).
    pub fn new(text: &str) -> Result<SpanIndex, toml::de::Error> {
        let root = DeTable::parse(text)?;
        let mut idx = SpanIndex {
            keys: vec![],
            arrays: vec![],
            line_starts: std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
        };
        idx.walk_table("", root.get_ref());
        Ok(idx)
    }

    fn walk_table(&mut self, prefix: &str, t: &DeTable<'_>) {
        for (k, v) in t.iter() {
            let path = if prefix.is_empty() {
                k.get_ref().to_string()
            } else {
                format!("{prefix}.{}", k.get_ref())
            };
            self.keys.push(KeySpan {
                path: path.clone(),
                key: k.span(),
                value: v.span(),
            });
            self.walk_value(&path, v.get_ref());
        }
    }

    fn walk_value(&mut self, path: &str, v: &DeValue<'_>) {
        match v {
            DeValue::Table(t) => self.walk_table(path, t),
            DeValue::Array(a) => {
                if !a.iter().any(|x| matches!(x.get_ref(), DeValue::Table(_))) {
                    self.arrays.push((path.to_string(), a.len()));
                }
                for (i, item) in a.iter().enumerate() {
                    let p = format!("{path}[{i}]");
                    if let DeValue::Table(t) = item.get_ref() {
                        self.keys.push(KeySpan {
                            path: p.clone(),
                            key: item.span(),
                            value: item.span(),
                        });
                        self.walk_table(&p, t);
                    }
                }
            }
            _ => {}
        }
    }

    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.line_starts.partition_point(|&s| s <= offset).max(1);
        (line, offset - self.line_starts[line - 1] + 1)
    }

    /// The span of a key path, if the file has it.
    pub fn get(&self, path: &str) -> Option<&KeySpan> {
        self.keys.iter().find(|k| k.path == path)
    }

    /// The innermost key whose key or value span contains `span.start` (the key an error is
    /// about).
    pub fn key_at(&self, span: &Range<usize>) -> Option<&KeySpan> {
        let at = span.start;
        self.keys
            .iter()
            .filter(|k| k.key.contains(&at) || k.value.contains(&at) || k.key.start == at)
            .min_by_key(|k| k.value.end.saturating_sub(k.value.start) + (k.value.end.max(k.key.end) - k.key.start))
    }
}
