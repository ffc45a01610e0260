"""The task record: its schema, validation, typed objects, and the dataset build, publish and load."""
