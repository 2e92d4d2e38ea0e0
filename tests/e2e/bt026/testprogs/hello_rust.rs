fn fun1(x: i64) {
    println!("{}", x)
}

fn main() {
    fun1(0)
}
