//! Issue 25's new-user program (`examples/keyed.rs`) runs to the end on
//! the bundled sample: CI compiles the example with the tests and runs it
//! here.

#[allow(dead_code)] // the example's `main`, which reads the command line
#[path = "../examples/keyed.rs"]
mod keyed;

#[test]
fn keyed_example_runs() {
    keyed::run(keyed::SAMPLE).expect("the keyed example runs to the end");
}
