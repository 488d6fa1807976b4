fn main() { eprintln!("whamm: not yet implemented"); std::process::exit(2) }
