fn main() {
    println!("isrlab: not wired yet");
}
