fn main() {
    eprintln!("wizeng: CLI not yet implemented");
    std::process::exit(2);
}
