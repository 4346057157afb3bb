"""Moving data in and out of a collection (review history now; course chapters and Anki
packages are planned here too)."""
