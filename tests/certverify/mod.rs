//! Issue 60: csvload's certificate verifier (src/pg/conn/certverify/) against OpenSSL, which
//! is what libpq verifies with. [`corpus`] builds the setups and asks `openssl verify` with
//! libpq's settings; this module runs each through the verifier and holds the rule: never
//! accepted where OpenSSL refuses, and every refusal OpenSSL would not make documented.

mod cases;
mod corpus;
mod prop;
mod servers;
mod x509;

use corpus::Case;

/// The verifier's outcome: Ok, or (the refusal is one of the documented ones, its words).
fn ours(case: &Case) -> Result<(), (bool, String)> {
    use dumpshard::pg::conn::certverify as cv;
    if case.crl.is_some() {
        // libpq reads ~/.postgresql/root.crl; csvload refuses to connect when it exists
        // (src/pg/conn/tls.rs), a documented refusal.
        return Err((
            true,
            "certificate revocation list exists (refused by tls.rs)".into(),
        ));
    }
    let store = cv::Store::from_pem(case.roots.as_bytes(), "the root file")
        .map_err(|e| (e.contains("csvload"), e))?;
    let sent: Vec<&[u8]> = case.sent.iter().map(Vec::as_slice).collect();
    let now = x509::now();
    match cv::verify(&sent, &store, now) {
        Ok(_) => Ok(()),
        Err(r) => Err((r.documented(), r.to_string())),
    }
}

/// Runs every case (on two threads) and returns the lines of each disagreement.
fn run_corpus(cases: &[Case]) -> (Vec<String>, Vec<String>) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let bad = std::sync::Mutex::new(vec![]);
    let documented = std::sync::Mutex::new(vec![]);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let dir = tempfile::tempdir().unwrap();
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(case) = cases.get(i) else { break };
                    let reference = corpus::openssl_verdict(case, dir.path());
                    let verdict = ours(case);
                    let line = |what: &str| {
                        format!(
                            "{}: {what}\n    openssl: {}\n    csvload: {}",
                            case.name,
                            match &reference {
                                Ok(()) => "OK".to_string(),
                                Err(e) => e.clone(),
                            },
                            match &verdict {
                                Ok(()) => "OK".to_string(),
                                Err((_, e)) => e.clone(),
                            }
                        )
                    };
                    match (&reference, &verdict) {
                        (Err(_), Ok(())) => bad
                            .lock()
                            .unwrap()
                            .push(line("ACCEPTED WHAT OPENSSL REFUSES")),
                        (Ok(()), Err((doc, _))) if !*doc || case.exact => bad
                            .lock()
                            .unwrap()
                            .push(line("refused what OpenSSL accepts")),
                        (Ok(()), Err(_)) => {
                            documented.lock().unwrap().push(line("documented refusal"))
                        }
                        _ => {}
                    }
                }
            });
        }
    });
    (bad.into_inner().unwrap(), documented.into_inner().unwrap())
}

#[test]
fn corpus_against_openssl() {
    let cases = cases::cases();
    assert!(cases.len() >= 300, "only {} cases", cases.len());
    let (bad, documented) = run_corpus(&cases);
    eprintln!(
        "{} cases; {} documented refusals:\n{}",
        cases.len(),
        documented.len(),
        documented.join("\n")
    );
    assert!(
        bad.is_empty(),
        "{} of {} cases disagree with OpenSSL:\n{}",
        bad.len(),
        cases.len(),
        bad.join("\n")
    );
}
