"""links"""
