from graphwright.cli.app import main

main()
