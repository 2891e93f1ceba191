use super::*;
use proptest::prelude::*;
use std::collections::HashMap;

#[test]
fn repeated_ids_are_refused_and_unsorted_ones_indexed() {
    assert!(IdMap::from_integers(vec![1, 1]).is_err());
    assert!(IdMap::from_integers(vec![3, 1, 3]).is_err());
    assert!(IdMap::from_strings(["b", "a", "b"]).is_err());
    assert!(IdMap::from_string_parts(b"ab".to_vec(), vec![1, 3]).is_err());
    let unsorted = IdMap::from_integers(vec![5, 9, 2, 7]).unwrap();
    assert!(!unsorted.is_sorted());
    assert_eq!(unsorted.sorted, 2);
    for (v, key) in [5u64, 9, 2, 7].into_iter().enumerate() {
        assert_eq!(unsorted.vertex_of(key), Some(v as VertexId));
    }
    assert_eq!(unsorted.vertex_of(6u64), None);
}

#[test]
fn string_parts_round_trip() {
    let names = IdMap::from_strings(["", "a", "ab", "b"]).unwrap();
    assert!(names.is_sorted());
    let (bytes, ends) = names.string_parts().unwrap();
    let again = IdMap::from_string_parts(bytes.to_vec(), ends.to_vec()).unwrap();
    assert_eq!(again, names);
    for v in 0..4 {
        let OriginalId::String(name) = names.original(v) else {
            panic!("strings")
        };
        assert_eq!(names.vertex_of_str(name), Some(v));
    }
    assert_eq!(names.vertex_of_str("c"), None);
    assert_eq!(names.vertex_of_integer(0), None);
    assert_eq!(names.get(4), None);
}

#[test]
fn interning_appends_new_keys_in_key_order_and_keeps_old_vertices() {
    let mut ids = IdMap::from_integers(vec![10, 20]).unwrap();
    assert_eq!(
        ids.intern_all(&[30u64, 20, 5, 30, 25]).unwrap(),
        [4, 1, 2, 4, 3]
    );
    assert_eq!(ids.integers(), Some(&[10, 20, 5, 25, 30][..]));
    assert_eq!(ids.intern(40u64).unwrap(), 5);
    assert_eq!(ids.intern(10u64).unwrap(), 0);
    assert_eq!(ids.len(), 6);
    // Keys past the last one extend the sorted prefix of an empty map.
    let mut growing = IdMap::new(IdKind::Integers);
    for key in [3u64, 8, 100, 1 << 50] {
        growing.intern(key).unwrap();
    }
    assert!(growing.is_sorted());
    assert_eq!(growing.tail.memory_bytes(), 0);
}

#[test]
fn a_first_batch_gives_the_sorted_map_the_loader_builds() {
    let mut ids = IdMap::new(IdKind::Strings);
    let vertices = ids.intern_all(&["carol", "alice", "bob", "alice"]).unwrap();
    assert_eq!(vertices, [2, 0, 1, 0]);
    assert_eq!(ids, IdMap::from_strings(["alice", "bob", "carol"]).unwrap());
    assert!(ids.is_sorted());
}

#[test]
fn a_key_of_the_other_kind_is_refused_by_name() {
    let mut ids = IdMap::new(IdKind::Integers);
    let error = ids.intern_all(&[OriginalId::Integer(1), OriginalId::String(b"alice")]);
    assert_eq!(
        error.unwrap_err().to_string(),
        "invalid argument: the key \"alice\" is a string, but this map holds integer ids"
    );
    assert!(ids.is_empty(), "nothing appended");
    assert_eq!(ids.vertex_of("alice"), None);
}

#[test]
fn a_batch_past_the_limit_appends_nothing() {
    let mut ids = IdMap::from_integers(vec![1]).unwrap();
    let keys = [2u64, 3, 1];
    let error = ids
        .intern_with(3, |i| keys[i].as_original(), 2)
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::VertexLimit {
                needed: 3,
                limit: 2,
                ..
            }
        ),
        "{error}"
    );
    assert_eq!(ids.len(), 1);
}

#[test]
fn records_replay_idempotently_and_refuse_gaps_and_conflicts() {
    let mut ids = IdMap::from_integers(vec![4, 2]).unwrap();
    let saved = ids.to_bytes();
    ids.intern_all(&[9u64, 1]).unwrap();
    let log = ids.encode_from(2);
    assert!(ids.encode_from(4).is_empty());
    let mut back = IdMap::from_bytes(&saved).unwrap();
    back.extend_from_bytes(&log).unwrap();
    assert_eq!(back, ids);
    // Overlapping records (the whole map, then the log) agree.
    let mut again =
        IdMap::from_bytes(&[saved.clone(), ids.to_bytes(), log.clone()].concat()).unwrap();
    assert_eq!(again, ids);
    // A gap: the log without what came before it.
    let error = IdMap::new(IdKind::Integers)
        .extend_from_bytes(&log)
        .unwrap_err();
    assert!(error.to_string().contains("a record is missing"), "{error}");
    // A conflict leaves the map as it was.
    let other = IdMap::from_integers(vec![4, 2, 9, 7])
        .unwrap()
        .encode_from(2);
    let before = again.clone();
    assert!(again.extend_from_bytes(&other).is_err());
    assert_eq!(again, before);
    // Every truncation of a record is refused, and undone.
    let whole = ids.to_bytes();
    for cut in 1..whole.len() {
        let mut partial = IdMap::new(IdKind::Integers);
        assert!(
            partial.extend_from_bytes(&whole[..cut]).is_err(),
            "cut at {cut}"
        );
        assert!(partial.is_empty(), "cut at {cut}");
    }
}

#[test]
fn string_records_round_trip_and_check_their_offsets() {
    let mut names = IdMap::new(IdKind::Strings);
    names.intern_all(&["x", "", "longer name"]).unwrap();
    let first = names.len() as VertexId;
    names.intern("a,b c").unwrap();
    let bytes = [names.encode_from(0), names.encode_from(first)].concat();
    assert_eq!(IdMap::from_bytes(&bytes).unwrap(), names);
    let mut broken = names.to_bytes();
    // The first end offset, past the bytes that follow.
    broken[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(IdMap::from_bytes(&broken).is_err());
    assert!(IdMap::from_bytes(b"").is_err());
    assert!(
        IdMap::from_bytes(&IdMap::new(IdKind::Strings).to_bytes())
            .unwrap()
            .is_empty()
    );
}

#[test]
fn relabel_note_says_what_was_relabelled() {
    let ids = IdMap::from_integers(vec![1, 2_000_000, 3]).unwrap();
    assert_eq!(
        ids.relabel_note(),
        "3 integer ids (up to 2000000) relabelled as vertices 0..=2; results name the original ids"
    );
    let names = IdMap::from_strings(["a", "b"]).unwrap();
    assert_eq!(
        names.relabel_note(),
        "2 string ids relabelled as vertices 0..=1, in id order; results name the original ids"
    );
}

#[test]
fn truncate_forgets_indexed_keys() {
    let mut ids = IdMap::from_integers(vec![5, 1]).unwrap();
    ids.intern_all(&[7u64, 0]).unwrap();
    ids.truncate(2);
    assert_eq!(ids.vertex_of(7u64), None);
    assert_eq!(ids.vertex_of(0u64), None);
    assert_eq!(ids.vertex_of(1u64), Some(1));
    assert_eq!(ids.intern(0u64).unwrap(), 2);
}

/// Keys from a small space, so batches repeat keys and meet old ones.
fn key_strategy() -> impl Strategy<Value = OriginalId<'static>> {
    const NAMES: [&str; 12] = [
        "", "a", "b", "ab", "ba", "z", "alice", "bob", "carol", "0", "10", "9",
    ];
    prop_oneof![
        (0u64..40).prop_map(|k| OriginalId::Integer(k * 1_000_003)),
        prop::sample::select(NAMES.to_vec()).prop_map(|n| OriginalId::String(n.as_bytes())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Batches and single keys into a growing map agree with a plain model
    /// (a list of keys and a hash map): every key keeps its first vertex,
    /// lookups go both ways, the bytes read back to the same map, and
    /// rebuilding from the keys in vertex order gives it again.
    #[test]
    fn interning_matches_a_model_and_round_trips(
        strings in any::<bool>(),
        batches in prop::collection::vec(prop::collection::vec(key_strategy(), 0..20), 1..8),
    ) {
        let kind = if strings { IdKind::Strings } else { IdKind::Integers };
        let mut ids = IdMap::new(kind);
        let mut model: Vec<OriginalId<'static>> = Vec::new();
        let mut vertex_of: HashMap<OriginalId<'static>, VertexId> = HashMap::new();
        let mut logged = Vec::new();
        for (round, batch) in batches.iter().enumerate() {
            let batch: Vec<_> = batch.iter().copied().filter(|k| k.kind() == kind).collect();
            let before = ids.len() as VertexId;
            let got = if round % 3 == 2 {
                batch.iter().map(|&k| ids.intern(k).unwrap()).collect()
            } else {
                ids.intern_all(&batch).unwrap()
            };
            // The model: new keys numbered in key order within a batch
            // (or one at a time for single interns).
            let mut new: Vec<_> = batch.iter().copied().filter(|k| !vertex_of.contains_key(k)).collect();
            if round % 3 != 2 {
                new.sort();
            }
            for key in new {
                if let std::collections::hash_map::Entry::Vacant(slot) = vertex_of.entry(key) {
                    slot.insert(model.len() as VertexId);
                    model.push(key);
                }
            }
            let expected: Vec<VertexId> = batch.iter().map(|k| vertex_of[k]).collect();
            prop_assert_eq!(got, expected);
            logged.extend(ids.encode_from(before));
        }
        prop_assert_eq!(ids.iter().collect::<Vec<_>>(), model.clone());
        for (v, key) in model.iter().enumerate() {
            prop_assert_eq!(ids.vertex_of(key), Some(v as VertexId));
        }
        prop_assert_eq!(ids.vertex_of(OriginalId::Integer(7)), None);
        let full = IdMap::from_bytes(&ids.to_bytes()).unwrap();
        prop_assert_eq!(&full, &ids);
        prop_assert_eq!(full.sorted, ids.sorted);
        let mut from_log = IdMap::new(kind);
        from_log.extend_from_bytes(&logged).unwrap();
        prop_assert_eq!(&from_log, &ids);
        let rebuilt = match kind {
            IdKind::Integers => IdMap::from_integers(ids.integers().unwrap().to_vec()).unwrap(),
            IdKind::Strings => {
                let (bytes, ends) = ids.string_parts().unwrap();
                IdMap::from_string_parts(bytes.to_vec(), ends.to_vec()).unwrap()
            }
        };
        for key in &model {
            prop_assert_eq!(rebuilt.vertex_of(key), ids.vertex_of(key));
        }
    }
}
