"""Command line (typer). Placeholder until the CLI lands."""
import typer
app = typer.Typer()
def main():
    app()
