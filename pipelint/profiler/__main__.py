from pipelint.profiler.cli import main

main()
