//! The design card's crates on the bench files: `cards gen FILE MB` writes a CSV of the
//! shape tests/progress.rs uses (`id,key,"name key, quoted",date`); `cards csvscan FILE`
//! counts its records with the `csv` crate; `cards extsort FILE OUT SEGMENT` sorts it by
//! (key int, id int) with `extsort` in segments of SEGMENT records and writes the records
//! back byte for byte, as `pksort -k 2:int,1:int` does.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::time::Instant;

struct Rec {
    key: (i64, i64),
    raw: Vec<u8>,
}

impl PartialEq for Rec {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Rec {}
impl PartialOrd for Rec {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Rec {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key.cmp(&o.key)
    }
}

impl extsort::Sortable for Rec {
    fn encode<W: Write>(&self, w: &mut W) -> std::io::Result<()> {
        w.write_all(&self.key.0.to_le_bytes())?;
        w.write_all(&self.key.1.to_le_bytes())?;
        w.write_all(&(self.raw.len() as u32).to_le_bytes())?;
        w.write_all(&self.raw)
    }
    fn decode<R: Read>(r: &mut R) -> std::io::Result<Rec> {
        let mut b8 = [0u8; 8];
        r.read_exact(&mut b8)?;
        let a = i64::from_le_bytes(b8);
        r.read_exact(&mut b8)?;
        let b = i64::from_le_bytes(b8);
        let mut b4 = [0u8; 4];
        r.read_exact(&mut b4)?;
        let mut raw = vec![0u8; u32::from_le_bytes(b4) as usize];
        r.read_exact(&mut raw)?;
        Ok(Rec { key: (a, b), raw })
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let t = Instant::now();
    match a[1].as_str() {
        "gen" => {
            let mb: u64 = a[3].parse().unwrap();
            let mut f = BufWriter::new(std::fs::File::create(&a[2]).unwrap());
            let (mut i, mut n) = (0u64, 0u64);
            while n < mb << 20 {
                let k = i.wrapping_mul(2_654_435_761) % 1_000_003;
                let line = format!("{i},{k},\"name {k}, quoted\",2024-01-02\n");
                n += line.len() as u64;
                f.write_all(line.as_bytes()).unwrap();
                i += 1;
            }
            f.flush().unwrap();
        }
        "csvscan" => {
            let mut r = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_path(&a[2])
                .unwrap();
            let mut rec = csv::ByteRecord::new();
            let mut n = 0u64;
            while r.read_byte_record(&mut rec).unwrap() {
                n += 1;
            }
            eprintln!("csv crate: {n} records");
        }
        "extsort" => {
            let seg: usize = a[4].parse().unwrap();
            let f = BufReader::with_capacity(1 << 20, std::fs::File::open(&a[2]).unwrap());
            let recs = f.split(b'\n').map(|l| {
                let mut raw = l.unwrap();
                let mut it = raw.split(|&c| c == b',');
                let id: i64 = std::str::from_utf8(it.next().unwrap()).unwrap().parse().unwrap();
                let k: i64 = std::str::from_utf8(it.next().unwrap()).unwrap().parse().unwrap();
                raw.push(b'\n');
                Rec { key: (k, id), raw }
            });
            let sorter = extsort::ExternalSorter::new()
                .with_segment_size(seg)
                .with_sort_dir(std::path::PathBuf::from(&a[5]));
            let mut out = BufWriter::new(std::fs::File::create(&a[3]).unwrap());
            for r in sorter.sort(recs).unwrap() {
                out.write_all(&r.unwrap().raw).unwrap();
            }
            out.flush().unwrap();
        }
        _ => panic!("gen | csvscan | extsort"),
    }
    eprintln!("{}: {:.2} s", a[1], t.elapsed().as_secs_f64());
}
