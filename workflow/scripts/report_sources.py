"""What the report reads besides each experiment's claims, figure and table (stdlib only: the
Snakefile imports it at every start)."""

# The experiment whose dataset holds the GPU model's error on public measurements it was never
# fitted to: the report sets the claims that rest on the model (``Claim.rests_on``) beside it.
VALIDATION = "lut-fig16"
