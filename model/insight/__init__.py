"""What the sessions add up to: usage and cost, tool outcomes, vital signs, schema drift, and who wrote a line of a file."""
