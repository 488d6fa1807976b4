fn main() { println!("spec harness not yet written"); }
