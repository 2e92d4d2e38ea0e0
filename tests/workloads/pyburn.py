# pyburn.py - on-CPU Python for the py-profile recipe (t_pystack.sh):
# main() calls hot(), which sums 300,000 numbers, and cold(), 100,000, until
# it is killed.
def hot():
    s = 0
    for i in range(300000):
        s += i
    return s


def cold():
    s = 0
    for i in range(100000):
        s += i
    return s


def main():
    print("ready", flush=True)
    while True:
        hot()
        cold()


main()
