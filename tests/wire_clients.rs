//! Real Kafka clients against `isrlab serve`: the brokers' listeners on loopback, free ports.
//! A test whose client is missing fails, unless `ISRLAB_SKIP_MISSING_CLIENTS` is set (then it
//! prints why and passes): `.ci/run` installs the clients.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

/// A headless cluster with its listeners; killed when dropped.
struct Served {
    child: Child,
    stdin: ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    /// `host:port` of each broker, by broker id order.
    addrs: Vec<String>,
}

impl Served {
    fn start(args: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_isrlab"))
            .args(["serve", "--listen-base", "0"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("isrlab serve starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut addrs = Vec::new();
        while addrs.len() < 3 {
            let line = lines.recv_timeout(Duration::from_secs(30)).expect("a listening line");
            if let Some(addr) = line.split(" listening on ").nth(1) {
                addrs.push(addr.to_string());
            }
        }
        Served { child, stdin, lines, addrs }
    }

    /// Applies a palette command and waits for its verdict.
    fn apply(&mut self, cmd: &str) -> String {
        writeln!(self.stdin, "{cmd}").expect("write a command");
        self.lines.recv_timeout(Duration::from_secs(30)).expect("a verdict")
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `program` can run; when not, panics unless missing clients may be skipped.
fn have(program: &str) -> bool {
    let found = Command::new(program).arg("-V").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok();
    if !found {
        assert!(
            std::env::var_os("ISRLAB_SKIP_MISSING_CLIENTS").is_some(),
            "{program} is not installed (.ci/run installs it; set ISRLAB_SKIP_MISSING_CLIENTS=1 to skip)"
        );
        eprintln!("skipped: {program} is not installed");
    }
    found
}

fn kcat(args: &[&str], input: &str) -> (bool, String) {
    let mut child = Command::new("timeout")
        .arg("60")
        .arg("kcat")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kcat runs");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("input");
    let out = child.wait_with_output().expect("kcat ends");
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn kcat_lists_the_cluster_and_round_trips_records_across_a_leader_crash() {
    if !have("kcat") {
        return;
    }
    let mut served = Served::start(&["--topic", "orders:1:3"]);
    let boot = served.addrs[0].clone();
    let (ok, listing) = kcat(&["-b", &boot, "-L", "-t", "orders"], "");
    assert!(ok, "{listing}");
    assert!(listing.contains(" 3 brokers:"), "{listing}");
    let leader: i32 = listing
        .split("leader ")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("a leader in {listing}"));
    assert!(listing.contains("isrs: "), "{listing}");

    let first: String = (0..50).map(|i| format!("a-{i}\n")).collect();
    let (ok, out) = kcat(&["-b", &boot, "-P", "-t", "orders", "-p", "0", "-X", "acks=all"], &first);
    assert!(ok, "{out}");
    assert!(served.apply(&format!("crash {leader}")).starts_with('✔'));
    let survivor = served.addrs[usize::try_from((leader + 1) % 3).unwrap()].clone();
    let second: String = (0..50).map(|i| format!("b-{i}\n")).collect();
    let (ok, out) = kcat(
        &[
            "-b",
            &survivor,
            "-P",
            "-t",
            "orders",
            "-p",
            "0",
            "-X",
            "acks=all",
            "-X",
            "message.timeout.ms=40000",
        ],
        &second,
    );
    assert!(ok, "{out}");

    let (ok, listing) = kcat(&["-b", &survivor, "-L", "-t", "orders"], "");
    assert!(ok && listing.contains(" 2 brokers:"), "the dead broker is gone from the brokers: {listing}");
    let (ok, read) =
        kcat(&["-b", &survivor, "-C", "-t", "orders", "-p", "0", "-o", "beginning", "-e", "-f", "%s\n"], "");
    assert!(ok, "{read}");
    let got: Vec<&str> = read.lines().filter(|l| l.starts_with("a-") || l.starts_with("b-")).collect();
    let want: Vec<String> =
        (0..50).map(|i| format!("a-{i}")).chain((0..50).map(|i| format!("b-{i}"))).collect();
    assert_eq!(got, want, "every acknowledged record, in order, once");
}

/// A producer's Metadata request for a missing topic has the broker create it with
/// `num.partitions` and `default.replication.factor` (`KafkaApis.handleTopicMetadataRequest`,
/// `AutoTopicCreationManager`), so kcat can produce to a topic nobody created; with
/// `auto.create.topics.enable=false` the topic stays unknown and the produce fails.
#[test]
fn kcat_produces_to_a_topic_the_broker_creates_and_not_when_creation_is_off() {
    if !have("kcat") {
        return;
    }
    let served = Served::start(&["--set", "num.partitions=2", "--set", "default.replication.factor=3"]);
    let boot = served.addrs[0].clone();
    let records: String = (0..10).map(|i| format!("n-{i}\n")).collect();
    let (ok, out) = kcat(&["-b", &boot, "-P", "-t", "fresh", "-p", "1", "-X", "acks=all"], &records);
    assert!(ok, "{out}");
    let (ok, listing) = kcat(&["-b", &boot, "-L", "-t", "fresh"], "");
    assert!(ok && listing.contains("with 2 partitions"), "{listing}");
    assert_eq!(listing.matches("replicas: ").count(), 2, "{listing}");
    for replicas in listing.split("replicas: ").skip(1) {
        let list = replicas.split(", isrs").next().unwrap_or_default();
        assert_eq!(list.split(',').count(), 3, "default.replication.factor=3: {listing}");
    }
    let (ok, read) =
        kcat(&["-b", &boot, "-C", "-t", "fresh", "-p", "1", "-o", "beginning", "-e", "-f", "%s\n"], "");
    assert!(ok, "{read}");
    assert_eq!(read.lines().filter(|l| l.starts_with("n-")).count(), 10, "{read}");
    drop(served);

    let off = Served::start(&["--set", "auto.create.topics.enable=false"]);
    let (ok, out) =
        kcat(&["-b", &off.addrs[0], "-P", "-t", "fresh", "-p", "0", "-X", "message.timeout.ms=3000"], "x\n");
    assert!(!ok || out.contains("Unknown topic"), "{out}");
    let (_, listing) = kcat(&["-b", &off.addrs[0], "-L", "-t", "fresh"], "");
    assert!(listing.contains("Unknown topic or partition") || listing.contains("UNKNOWN_TOPIC"), "{listing}");
}

/// Random and truncated frames close their own connection and nothing else: a connection
/// opened before them still answers.
#[test]
fn bad_frames_close_only_their_connection() {
    let served = Served::start(&[]);
    let addr = served.addrs[0].clone();
    let mut good = TcpStream::connect(&addr).expect("connect");
    good.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let api_versions = |s: &mut TcpStream, correlation: i32| {
        // ApiVersions v0: key 18, version 0, correlation id, no client id.
        let mut frame = vec![0, 18, 0, 0];
        frame.extend_from_slice(&correlation.to_be_bytes());
        frame.extend_from_slice(&(-1i16).to_be_bytes());
        s.write_all(&(frame.len() as i32).to_be_bytes()).unwrap();
        s.write_all(&frame).unwrap();
        let mut size = [0u8; 4];
        s.read_exact(&mut size).expect("a response");
        let mut body = vec![0u8; i32::from_be_bytes(size) as usize];
        s.read_exact(&mut body).unwrap();
        i32::from_be_bytes([body[0], body[1], body[2], body[3]])
    };
    assert_eq!(api_versions(&mut good, 1), 1);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..200 {
        let mut bad = TcpStream::connect(&addr).expect("connect");
        bad.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let len = (next() % 64) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        match round % 4 {
            // A valid size and random content.
            0 => {
                let mut framed = (len as i32).to_be_bytes().to_vec();
                framed.append(&mut bytes);
                bytes = framed;
            }
            // A real request header (Metadata v12) cut short.
            1 => {
                let mut framed = 40i32.to_be_bytes().to_vec();
                framed.extend_from_slice(&[0, 3, 0, 12, 0, 0, 0, 7]);
                framed.extend(bytes.into_iter().take(10));
                bytes = framed;
            }
            // An oversized frame.
            2 => bytes = i32::MAX.to_be_bytes().to_vec(),
            _ => {}
        }
        let _ = bad.write_all(&bytes);
        let _ = bad.shutdown(std::net::Shutdown::Write);
        let mut rest = Vec::new();
        let _ = bad.read_to_end(&mut rest);
    }
    assert_eq!(api_versions(&mut good, 2), 2, "the first connection still answers");
}

/// Runs a client script of `tests/clients` with `python3`, the bootstrap list as argument;
/// returns its child with stdout piped.
fn python(script: &str, boot: &str) -> Child {
    Command::new("timeout")
        .args(["150", "python3", &format!("{}/tests/clients/{script}", env!("CARGO_MANIFEST_DIR")), boot])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 runs")
}

#[test]
fn kafka_python_keeps_every_acknowledged_record_through_a_leader_crash() {
    if !have_python_module("kafka", "kafka-python") {
        return;
    }
    let mut served = Served::start(&["--topic", "orders:1:3"]);
    let boot = served.addrs.join(",");
    let mut child = python("kafka_python_failover.py", &boot);
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines().map_while(Result::ok);
    let leader = lines.next().expect("the leader line");
    let leader = leader.strip_prefix("leader ").unwrap_or_else(|| panic!("{leader}"));
    assert!(served.apply(&format!("crash {leader}")).starts_with('✔'));
    let rest: Vec<String> = lines.collect();
    let _ = child.wait();
    let last = rest.last().cloned().unwrap_or_default();
    assert!(last.ends_with(" missing 0"), "no acknowledged record lost: {rest:?}");
    let acked: usize = last.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or(0);
    assert!(acked > 250, "most records acknowledged through the failover: {rest:?}");
}

#[test]
fn kafka_python_gets_not_enough_replicas_below_min_insync_replicas() {
    if !have_python_module("kafka", "kafka-python") {
        return;
    }
    let mut served = Served::start(&["--topic", "orders:1:3"]);
    let boot = served.addrs.join(",");
    assert!(served.apply("set topic orders min.insync.replicas=3").starts_with('✔'));
    let ok = python("kafka_python_min_isr.py", &boot).wait_with_output().expect("ends");
    assert_eq!(String::from_utf8_lossy(&ok.stdout).trim(), "acked", "the full ISR acknowledges");
    assert!(served.apply("crash 0").starts_with('✔'));
    // The controller fences the crashed broker and shrinks the ISR after
    // broker.session.timeout.ms (9 s at 1× speed).
    std::thread::sleep(Duration::from_secs(11));
    let refused = python("kafka_python_min_isr.py", &boot).wait_with_output().expect("ends");
    assert_eq!(String::from_utf8_lossy(&refused.stdout).trim(), "NotEnoughReplicasError");
}

/// Whether the Python module `module` can be imported; when not, panics unless missing
/// clients may be skipped.
fn have_python_module(module: &str, package: &str) -> bool {
    let found = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var_os("ISRLAB_SKIP_MISSING_CLIENTS").is_some(),
            "{package} is not installed (.ci/run installs it; set ISRLAB_SKIP_MISSING_CLIENTS=1 to skip)"
        );
        eprintln!("skipped: {package} is not installed");
    }
    found
}

/// confluent-kafka's consumers in one classic group (FindCoordinator, JoinGroup, SyncGroup,
/// Heartbeat, OffsetCommit, OffsetFetch, LeaveGroup on the simulated coordinator): the two
/// share the partitions, and when one leaves the other resumes its partition from the
/// committed offset, reading no record twice.
#[test]
fn confluent_kafka_consumers_share_a_group_and_one_takes_over_from_the_committed_offset() {
    if !have_python_module("confluent_kafka", "confluent-kafka") {
        return;
    }
    // The simulated producer writes to the first topic, so the group's topic has only the
    // script's records.
    let served = Served::start(&["--topic", "sim:1:3", "--topic", "orders:2:3"]);
    let boot = served.addrs.join(",");
    let out = python("confluent_group.py", &boot).wait_with_output().expect("ends");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let lines: Vec<&str> = text.lines().collect();
    let shared = lines.first().copied().unwrap_or_default();
    assert!(
        shared == "shared [0] [1] read 40" || shared == "shared [1] [0] read 40",
        "one partition each, every record read once: {text}"
    );
    assert_eq!(lines.get(1).copied(), Some("took over read 40 duplicates 0"), "{text}");
}

/// Whether kafkajs is installed in `tests/kafkajs` (with node); when not, panics unless
/// missing clients may be skipped.
fn have_kafkajs() -> bool {
    let found = Command::new("node")
        .args(["-e", "require('kafkajs')"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/kafkajs"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var_os("ISRLAB_SKIP_MISSING_CLIENTS").is_some(),
            "kafkajs is not installed in tests/kafkajs (.ci/run installs it; set ISRLAB_SKIP_MISSING_CLIENTS=1 to skip)"
        );
        eprintln!("skipped: kafkajs is not installed");
    }
    found
}

/// kafkajs produces with acks=all and its consumer group reads the records back, in order.
#[test]
fn kafkajs_produces_and_consumes() {
    if !have_kafkajs() {
        return;
    }
    let served = Served::start(&["--topic", "sim:1:3", "--topic", "orders:1:3"]);
    let out = Command::new("timeout")
        .args(["120", "node", "produce_consume.js", &served.addrs.join(",")])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/kafkajs"))
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(text.lines().collect::<Vec<_>>(), ["produced 30 at 0", "consumed 30 in order"], "{text}");
}

/// Sends DescribeTopicPartitions v0 for `topic` to `addr` and decodes the answer.
fn describe_topic_partitions(
    addr: &str,
    topic: &str,
) -> kafka_protocol::messages::DescribeTopicPartitionsResponse {
    use kafka_protocol::messages::{
        ApiKey, DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse, RequestHeader, TopicName,
        describe_topic_partitions_request::TopicRequest,
    };
    use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let key = ApiKey::DescribeTopicPartitions;
    let mut header = RequestHeader::default();
    header.request_api_key = key as i16;
    header.correlation_id = 5;
    let mut request = DescribeTopicPartitionsRequest::default();
    request.response_partition_limit = 2000;
    let mut t = TopicRequest::default();
    t.name = TopicName(StrBytes::from_string(topic.to_string()));
    request.topics.push(t);
    let mut frame = bytes::BytesMut::new();
    header.encode(&mut frame, key.request_header_version(0)).unwrap();
    request.encode(&mut frame, 0).unwrap();
    s.write_all(&(frame.len() as i32).to_be_bytes()).unwrap();
    s.write_all(&frame).unwrap();
    let mut size = [0u8; 4];
    s.read_exact(&mut size).expect("a response");
    let mut body = vec![0u8; i32::from_be_bytes(size) as usize];
    s.read_exact(&mut body).unwrap();
    let mut buf = bytes::Bytes::from(body);
    kafka_protocol::messages::ResponseHeader::decode(&mut buf, key.response_header_version(0)).unwrap();
    DescribeTopicPartitionsResponse::decode(&mut buf, 0).expect("a DescribeTopicPartitions response")
}

/// DescribeTopicPartitions (KIP-966): with `min.insync.replicas=2`, the two followers
/// crashed one after the other leave the leader alone in the ISR, and the second one, removed
/// while the ISR was below min ISR, is in the ELR; both are offline.
#[test]
fn describe_topic_partitions_shows_the_elr() {
    let mut served = Served::start(&["--topic", "orders:1:3", "--set", "min.insync.replicas=2"]);
    let before = describe_topic_partitions(&served.addrs[0], "orders");
    let p = &before.topics[0].partitions[0];
    assert_eq!(p.replica_nodes.len(), 3, "{before:?}");
    assert_eq!(p.eligible_leader_replicas.as_deref(), Some(&[][..]), "{before:?}");
    let leader = i32::from(p.leader_id);
    let followers: Vec<i32> = (0..3).filter(|b| *b != leader).collect();
    let leader_addr = served.addrs[usize::try_from(leader).unwrap()].clone();
    for f in &followers {
        assert!(served.apply(&format!("crash {f}")).starts_with('✔'));
        // The controller fences it after broker.session.timeout.ms (9 s at 1× speed).
        std::thread::sleep(Duration::from_secs(11));
    }
    let after = describe_topic_partitions(&leader_addr, "orders");
    let p = &after.topics[0].partitions[0];
    assert_eq!(after.topics[0].error_code, 0, "{after:?}");
    assert_eq!(p.isr_nodes.iter().map(|b| i32::from(*b)).collect::<Vec<_>>(), [leader], "{after:?}");
    let elr: Vec<i32> = p.eligible_leader_replicas.iter().flatten().map(|b| i32::from(*b)).collect();
    assert_eq!(elr, [followers[1]], "{after:?}");
    let mut offline: Vec<i32> = p.offline_replicas.iter().map(|b| i32::from(*b)).collect();
    offline.sort();
    assert_eq!(offline, followers, "{after:?}");
    let missing = describe_topic_partitions(&leader_addr, "nothing");
    assert_eq!(missing.topics[0].error_code, 3, "UNKNOWN_TOPIC_OR_PARTITION");
}
