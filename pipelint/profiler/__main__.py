from pipelint.profiler.run.cli import main

main()
